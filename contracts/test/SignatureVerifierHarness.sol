// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {SignatureVerifier} from "../ens/SignatureVerifier.sol";

/// @title SignatureVerifierHarness
/// @notice Test-only: exposes the SignatureVerifier library so tests can compare it with the gateway's TS.
contract SignatureVerifierHarness {
    /// @notice SignatureVerifier.makeSignatureHash.
    function makeSignatureHash(
        address target,
        uint64 expires,
        bytes calldata request,
        bytes calldata result
    ) external pure returns (bytes32) {
        return SignatureVerifier.makeSignatureHash(target, expires, request, result);
    }

    /// @notice SignatureVerifier.verify, with this harness as the target.
    function verify(
        bytes calldata request,
        bytes calldata response
    ) external view returns (address signer, bytes memory result) {
        return SignatureVerifier.verify(request, response);
    }
}
