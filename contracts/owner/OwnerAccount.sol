// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {OwnedAccount} from "../account/OwnedAccount.sol";
import {IDelegateCodeRegistry} from "./IDelegateCodeRegistry.sol";
import {ProxyAccountFactory} from "../account/ProxyAccountFactory.sol";

/// @title OwnerAccount
/// @notice The operator's rotatable owner of every wallet: an ERC-1271 contract that accepts a
///         signature from any of its signer keys. Rotating the operator key is one `addSigner` and one
///         `removeSigner` per chain, and no wallet address moves, since wallets name this contract.
///         It is also every custodial wallet's governor: only its admin, through it, changes a wallet's code
///         (`upgradeWallets`) or hands a wallet to another owner (`transferWalletOwnership`); the hot signers
///         can do neither, so a stolen signer key stops working for good once it is removed.
/// @dev Its address depends only on its admin, not on any signer key. The hashes it is asked about are
///      already bound to one wallet and chain (ERC-4337 userOpHash) or to one wallet (KernelAccount's
///      replay-safe hash), so it checks the raw digest. The admin is a cold key; signers are hot.
contract OwnerAccount is IERC1271, IDelegateCodeRegistry, Ownable2Step {
    mapping(address signer => bool) private _signers;
    mapping(bytes32 codeHash => bool) private _delegateCode;

    /// @notice Emitted when `signer` may sign for the wallets.
    event SignerAdded(address indexed signer);
    /// @notice Emitted when `signer` may no longer sign for the wallets.
    event SignerRemoved(address indexed signer);

    /// @notice Emitted when custodial wallets may (or may no longer) delegatecall into code hashing to `codeHash`.
    event DelegateCodeSet(bytes32 indexed codeHash, bool allowed);
    /// @notice Emitted when `count` wallets of `factory` were moved to `implementation`.
    event WalletsUpgraded(address indexed factory, address indexed implementation, uint256 count);

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

    /// @notice Moves the wallets of `factory` for `salts` to `implementation` (UUPS `upgradeToAndCall` with
    ///         `data`, empty for none), creating each one that is not deployed yet first: one admin transaction
    ///         per chain for many wallets. Reverts as a whole if any wallet refuses (e.g. one handed over).
    /// @param factory The factory whose wallets these are.
    /// @param salts The wallets' salts (derived off chain from the user ids).
    /// @param implementation The new implementation; it must answer ERC-1822 `proxiableUUID`.
    /// @param data A call made on each wallet in the new implementation's context, or empty.
    function upgradeWallets(
        ProxyAccountFactory factory,
        bytes32[] calldata salts,
        address implementation,
        bytes calldata data
    ) external onlyOwner {
        for (uint256 i = 0; i < salts.length; ++i) {
            OwnedAccount(payable(factory.createAccount(salts[i]))).upgradeToAndCall(implementation, data);
        }
        emit WalletsUpgraded(address(factory), implementation, salts.length);
    }

    /// @notice Hands the wallet of `factory` for `salt` to `newOwner` (for example the user's own key), which then
    ///         governs it alone, on this chain: creates the wallet first if it is not deployed yet.
    /// @param factory The factory whose wallet this is.
    /// @param salt The wallet's salt.
    /// @param newOwner Its new owner (EOA or ERC-1271 contract).
    function transferWalletOwnership(ProxyAccountFactory factory, bytes32 salt, address newOwner) external onlyOwner {
        OwnedAccount(payable(factory.createAccount(salt))).transferOwnership(newOwner);
    }

    /// @notice Lets custodial wallets delegatecall into code hashing to `codeHash` (a reviewed script), or stops it.
    ///         Allow only code that cannot SELFDESTRUCT and writes no state a later implementation could trust.
    /// @param codeHash The EXTCODEHASH of the script contract.
    /// @param allowed Whether it may run.
    function setDelegateCode(bytes32 codeHash, bool allowed) external onlyOwner {
        _delegateCode[codeHash] = allowed;
        emit DelegateCodeSet(codeHash, allowed);
    }

    /// @inheritdoc IDelegateCodeRegistry
    function isDelegateCode(bytes32 codeHash) external view returns (bool) {
        return _delegateCode[codeHash];
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
