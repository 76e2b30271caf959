// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title TestImmutableKeyOwner
/// @notice Test-only ERC-1271 wallet owner whose one signing key is an immutable: its signature check reads no storage
///         at all, so an ERC-7562 bundler lets an unstaked wallet ask it (STO-021 forbids reading another unstaked
///         contract's storage, even the wallet's own mapping entry there).
contract TestImmutableKeyOwner is IERC1271 {
    /// @notice The only key whose signatures this owner accepts.
    address public immutable key;

    /// @param key_ The signing key.
    constructor(address key_) {
        key = key_;
    }

    /// @notice EIP-1271: whether `signature` is the key's ECDSA signature of `hash`.
    /// @param hash The digest that was signed.
    /// @param signature The 65-byte signature.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(hash, signature);
        return err == ECDSA.RecoverError.NoError && recovered == key ? this.isValidSignature.selector : bytes4(0xffffffff);
    }
}
