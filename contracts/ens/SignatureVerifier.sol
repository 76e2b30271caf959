// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title SignatureVerifier
/// @notice Checks a gateway's signed answer to an EIP-3668 (CCIP-read) lookup.
/// @dev The hash binds the answer to the resolver (`target`), the exact request and an expiry, so an
///      answer cannot be replayed for another name, record or resolver, nor after it expires.
library SignatureVerifier {
    /// @notice The answer expired at `expires` (unix seconds), before the current block.
    error SignatureVerifierExpired(uint64 expires);
    /// @notice The signature is not a well-formed 65-byte ECDSA signature.
    error SignatureVerifierInvalidSignature();

    /// @notice The digest a gateway signer signs (raw, without EIP-191 message prefix).
    /// @dev 0x1900 is the EIP-191 "version 0" prefix (data with intended validator), the validator
    ///      being `target`.
    /// @param target The resolver contract that will verify the answer.
    /// @param expires Last second (unix) the answer may be used.
    /// @param request The request as the resolver sees it (the lookup's extraData).
    /// @param result The ABI-encoded answer.
    function makeSignatureHash(
        address target,
        uint64 expires,
        bytes memory request,
        bytes memory result
    ) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1900", target, expires, keccak256(request), keccak256(result)));
    }

    /// @notice Recovers who signed a gateway answer for `request` and returns the answer.
    /// @dev `address(this)` is the target, so this must run in the resolver's own context.
    /// @param request The request the answer is for (the lookup's extraData).
    /// @param response abi.encode(bytes result, uint64 expires, bytes sig) as sent by the gateway.
    /// @return signer The recovered signer; the caller decides whether it is trusted.
    /// @return result The ABI-encoded answer.
    function verify(
        bytes calldata request,
        bytes calldata response
    ) internal view returns (address signer, bytes memory result) {
        uint64 expires;
        bytes memory sig;
        (result, expires, sig) = abi.decode(response, (bytes, uint64, bytes));
        if (expires < block.timestamp) revert SignatureVerifierExpired(expires);
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(
            makeSignatureHash(address(this), expires, request, result),
            sig
        );
        if (err != ECDSA.RecoverError.NoError) revert SignatureVerifierInvalidSignature();
        return (recovered, result);
    }
}
