// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {BaseAccount} from "@account-abstraction/contracts/core/BaseAccount.sol";
import {SIG_VALIDATION_FAILED, SIG_VALIDATION_SUCCESS} from "@account-abstraction/contracts/core/Helpers.sol";
import {IAccount} from "@account-abstraction/contracts/interfaces/IAccount.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {ERC1967Utils} from "@openzeppelin/contracts/proxy/ERC1967/ERC1967Utils.sol";
import {UUPSUpgradeable} from "@openzeppelin/contracts/proxy/utils/UUPSUpgradeable.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IDelegateCodeRegistry} from "../owner/IDelegateCodeRegistry.sol";
import {TokenReceiver} from "./TokenReceiver.sol";

/// @title OwnedAccount
/// @notice The part every idwallet account type shares: an ERC-4337 v0.7 account behind an ERC-1967 proxy
///         (UUPS), owned by the operator's custodian (the OwnerAccount, fixed in the implementation) until it
///         is handed to another owner, an EOA or an ERC-1271 contract.
/// @dev Four rules make one stolen hot key, or one app holding a user's proof, unable to take a wallet for
///      good:
///      - the owner and the code change only by a direct call from the governor: the custodian itself
///        (its cold admin) while the custodian owns the wallet, never a UserOperation its hot signers sign;
///        a wallet handed to its own key is governed by that key (a direct call or its own UserOperation);
///      - while the custodian owns the wallet, a delegatecall runs only code the custodian's admin allowed (by
///        code hash: no code that could SELFDESTRUCT the wallet, roll back an upgrade or plant state for a later
///        implementation), and no delegatecall may change the owner or the implementation (checked after it);
///      - the implementation cannot act as a wallet itself (it could be destroyed, taking every wallet with it);
///      - custody is decided when a signature is checked, not when the owner is set: an empty owner slot
///        means "the custodian", so a wallet created on a chain where the custodian is not deployed yet
///        works as soon as it is, and nothing at creation depends on another contract's code.
abstract contract OwnedAccount is BaseAccount, TokenReceiver, UUPSUpgradeable {
    /// @custom:storage-location erc7201:idwallet.storage.OwnedAccount
    struct OwnedAccountStorage {
        /// @dev The owner when it is not the custodian; zero while the custodian owns the account.
        address owner;
    }

    // keccak256(abi.encode(uint256(keccak256("idwallet.storage.OwnedAccount")) - 1)) & ~bytes32(uint256(0xff))
    bytes32 private constant _STORAGE_SLOT = 0x63a81ca6a732d95017419e12c9019b5bc15e8c6140f52bbda4339d206101bc00;

    IEntryPoint private immutable _entryPoint;
    /// @dev The operator's owner account: owner of every wallet that has not been handed over.
    address private immutable _custodian;

    /// @notice Emitted when the owner changes (`newOwner` is the custodian when the account is handed back).
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    /// @notice The caller may not do this.
    error OwnedAccountUnauthorized(address caller);
    /// @notice The zero address cannot own an account, nor be the custodian; nor can an account own itself.
    error OwnedAccountInvalidOwner(address owner);
    /// @notice A call made by the account reverted without giving a reason.
    error OwnedAccountCallFailed();
    /// @notice A delegatecall changed the owner or the implementation, which only the governor may change.
    error OwnedAccountProtectedStateChanged();
    /// @notice The custodian has not allowed delegatecalls into `target`'s code.
    error OwnedAccountDelegateCallNotAllowed(address target);

    /// @dev Only the EntryPoint (a validated UserOperation) or the account itself may act.
    modifier onlyEntryPointOrSelf() {
        if (msg.sender != address(_entryPoint) && msg.sender != address(this)) {
            revert OwnedAccountUnauthorized(msg.sender);
        }
        _;
    }

    /// @param entryPoint_ The ERC-4337 v0.7 EntryPoint this account trusts.
    /// @param custodian_ The operator's OwnerAccount; need not be deployed yet on this chain.
    constructor(IEntryPoint entryPoint_, address custodian_) {
        if (custodian_ == address(0)) revert OwnedAccountInvalidOwner(custodian_);
        _entryPoint = entryPoint_;
        _custodian = custodian_;
    }

    /// @notice Hands the account to `newOwner` (the custodian: hands it back). Only the governor may:
    ///         the custodian by a direct call while it owns the account, afterwards the owner itself.
    /// @param newOwner The new owner (EOA or ERC-1271 contract).
    function transferOwnership(address newOwner) external {
        _requireGovernor();
        // Owning itself would make every signature check ask itself, for ever: no one could act again.
        if (newOwner == address(0) || newOwner == address(this)) revert OwnedAccountInvalidOwner(newOwner);
        address previous = owner();
        _storage().owner = newOwner == _custodian ? address(0) : newOwner;
        emit OwnershipTransferred(previous, newOwner);
    }

    /// @notice The address whose signatures this account accepts.
    function owner() public view returns (address) {
        address stored = _storage().owner;
        return stored == address(0) ? _custodian : stored;
    }

    /// @notice The operator's OwnerAccount this implementation names as the owner of every new account.
    function custodian() external view returns (address) {
        return _custodian;
    }

    /// @notice The implementation this proxy runs (ERC-1967 slot).
    function implementation() external view returns (address) {
        return ERC1967Utils.getImplementation();
    }

    /// @notice The EntryPoint this account trusts.
    function entryPoint() public view override returns (IEntryPoint) {
        return _entryPoint;
    }

    /// @inheritdoc TokenReceiver
    function supportsInterface(bytes4 interfaceId) public view virtual override returns (bool) {
        return interfaceId == type(IAccount).interfaceId || super.supportsInterface(interfaceId);
    }

    /// @dev UUPS: only the governor moves the account to new code (OwnerAccount.upgradeWallets for the custodian).
    function _authorizeUpgrade(address) internal view override {
        _requireGovernor();
    }

    /// @dev The custodian's direct call while it owns the account; once handed over, the owner's direct call
    ///      or the account's own call (a UserOperation the owner signed). A self-call of a custodial account
    ///      is refused: its UserOperations are signed by hot keys, which must not be able to make a theft last.
    function _requireGovernor() internal view {
        address stored = _storage().owner;
        if (stored == address(0)) {
            if (msg.sender == _custodian) return;
        } else if (msg.sender == stored || msg.sender == address(this)) {
            return;
        }
        revert OwnedAccountUnauthorized(msg.sender);
    }

    /// @dev ERC-4337: the owner signs the userOpHash as an EIP-191 personal message, which any wallet
    ///      (personal_sign) and any ERC-1271 owner can produce. A bad signature returns 1, never reverts,
    ///      so bundlers can estimate gas with a dummy signature.
    function _validateSignature(
        PackedUserOperation calldata userOp,
        bytes32 userOpHash
    ) internal view override returns (uint256 validationData) {
        bytes32 digest = MessageHashUtils.toEthSignedMessageHash(userOpHash);
        return _isOwnerSignature(digest, userOp.signature) ? SIG_VALIDATION_SUCCESS : SIG_VALIDATION_FAILED;
    }

    /// @dev Runs first in validateUserOp. The implementation itself has an empty owner slot, so it would accept the
    ///      custodian's signatures as if it were a wallet; only proxies (UUPS `_checkProxy`) validate operations.
    function _requireFromEntryPoint() internal view override {
        _checkProxy();
        if (msg.sender != address(_entryPoint)) revert OwnedAccountUnauthorized(msg.sender);
    }

    /// @dev True if `signature` is the owner's over `digest`. The custodian is asked under ERC-1271 (no
    ///      ecrecover first; an undeployed custodian answers nothing, which is "no"); another owner is
    ///      checked as an EOA, then under ERC-1271, whatever code it had when it became the owner.
    function _isOwnerSignature(bytes32 digest, bytes calldata signature) internal view returns (bool) {
        address stored = _storage().owner;
        if (stored == address(0)) return SignatureChecker.isValidERC1271SignatureNow(_custodian, digest, signature);
        return SignatureChecker.isValidSignatureNow(stored, digest, signature);
    }

    /// @dev Makes one call, bubbling the callee's revert data unchanged so that the EntryPoint's
    ///      UserOperationRevertReason event carries the real reason.
    function _call(address target, uint256 value, bytes calldata data) internal {
        (bool success, bytes memory result) = target.call{value: value}(data);
        if (!success) _revertWith(result);
    }

    /// @dev Runs `target`'s code on this account's storage: while custodial, only code the custodian allows; never
    ///      changing the owner or the implementation.
    function _delegateCall(address target, bytes calldata data) internal returns (bool success, bytes memory result) {
        if (_storage().owner == address(0) && !IDelegateCodeRegistry(_custodian).isDelegateCode(target.codehash)) {
            revert OwnedAccountDelegateCallNotAllowed(target);
        }
        bytes32 before = _protectedState();
        (success, result) = target.delegatecall(data);
        if (success && _protectedState() != before) revert OwnedAccountProtectedStateChanged();
    }

    /// @dev What a delegatecall may not change. An implementation that adds governed state extends it.
    function _protectedState() internal view virtual returns (bytes32) {
        return keccak256(abi.encode(_storage().owner, ERC1967Utils.getImplementation()));
    }

    /// @dev Re-throws `reason` as this call's revert data.
    function _revertWith(bytes memory reason) internal pure {
        if (reason.length == 0) revert OwnedAccountCallFailed();
        // Bubbling raw revert data has no Solidity syntax; it is read straight from memory.
        assembly ("memory-safe") {
            revert(add(reason, 0x20), mload(reason))
        }
    }

    function _storage() private pure returns (OwnedAccountStorage storage s) {
        // ERC-7201 namespaced storage: a later implementation's own state cannot collide with the owner.
        assembly ("memory-safe") {
            s.slot := _STORAGE_SLOT
        }
    }
}
