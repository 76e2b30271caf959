// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title IResolverService
/// @notice The gateway's call: an EIP-3668 client sends `resolve(name, data)` as the lookup's
///         `callData` to the gateway, which answers with a signed, expiring result.
/// @dev Never deployed; it only defines the ABI shared by OffchainResolver and the gateway.
interface IResolverService {
    /// @notice Answers one resolver call for `name` off-chain.
    /// @param name The DNS wire-format encoding of the name being resolved.
    /// @param data The ABI-encoded resolver call.
    /// @return result The ABI-encoded return value of that call.
    /// @return expires Last second (unix) the answer may be used.
    /// @return sig A signer's 65-byte ECDSA signature of SignatureVerifier.makeSignatureHash.
    function resolve(
        bytes calldata name,
        bytes calldata data
    ) external view returns (bytes memory result, uint64 expires, bytes memory sig);
}
