// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title OwnerAccount
/// @notice The operator's rotatable owner of every wallet: an ERC-1271 contract that accepts a
///         signature from any of its signer keys. Rotating the operator key is one `addSigner` and one
///         `removeSigner` per chain, and no wallet address moves, since wallets name this contract.
/// @dev Its address depends only on its admin, not on any signer key. The hashes it is asked about are
///      already bound to one wallet and chain (ERC-4337 userOpHash) or to one wallet (KernelAccount's
///      replay-safe hash), so it checks the raw digest. The admin is a cold key; signers are hot.
contract OwnerAccount is IERC1271, Ownable2Step {
    mapping(address signer => bool) private _signers;

    /// @notice Emitted when `signer` may sign for the wallets.
    event SignerAdded(address indexed signer);
    /// @notice Emitted when `signer` may no longer sign for the wallets.
    event SignerRemoved(address indexed signer);

    /// @notice `signer` is the zero address, already a signer (add), or not a signer (remove).
    error OwnerAccountInvalidSigner(address signer);

    /// @param admin The key that manages the signer set (two-step transferable).
    constructor(address admin) Ownable(admin) {}

    /// @notice Lets `signer` sign for the wallets.
    /// @param signer The new signer key.
    function addSigner(address signer) external onlyOwner {
        if (signer == address(0) || _signers[signer]) revert OwnerAccountInvalidSigner(signer);
        _signers[signer] = true;
        emit SignerAdded(signer);
    }

    /// @notice Stops `signer` from signing for the wallets, at once.
    /// @param signer The signer key to remove.
    function removeSigner(address signer) external onlyOwner {
        if (!_signers[signer]) revert OwnerAccountInvalidSigner(signer);
        _signers[signer] = false;
        emit SignerRemoved(signer);
    }

    /// @notice Whether `signer` may sign for the wallets.
    /// @param signer The key asked about.
    function isSigner(address signer) external view returns (bool) {
        return _signers[signer];
    }

    /// @notice EIP-1271: whether `signature` is a 65-byte ECDSA signature of `hash` by a signer.
    /// @param hash The digest that was signed.
    /// @param signature The signature.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(hash, signature);
        return
            err == ECDSA.RecoverError.NoError && _signers[recovered]
                ? this.isValidSignature.selector
                : bytes4(0xffffffff);
    }
}
