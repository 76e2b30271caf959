// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {BaseAccount} from "@account-abstraction/contracts/core/BaseAccount.sol";
import {SIG_VALIDATION_FAILED, SIG_VALIDATION_SUCCESS} from "@account-abstraction/contracts/core/Helpers.sol";
import {IAccount} from "@account-abstraction/contracts/interfaces/IAccount.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {TokenReceiver} from "./TokenReceiver.sol";

/// @title OwnedAccount
/// @notice The part every idwallet account type shares: an ERC-4337 v0.7 account used as an EIP-1167
///         clone, initialised once by its factory, owned by one address that may be an EOA or an
///         ERC-1271 contract (SignatureChecker), and whose owner changes only by a call from itself.
/// @dev The owner is not part of the clone's creation code, so an account's address never depends on a key.
abstract contract OwnedAccount is BaseAccount, TokenReceiver {
    IEntryPoint private immutable _entryPoint;
    /// @dev The factory that deploys this implementation and is the only one allowed to initialise clones.
    address private immutable _factory;

    address private _owner;
    /// @dev Whether `_owner` had code when it was set; packed in `_owner`'s slot, so validation reads one
    ///      slot and never probes an EOA's code (ERC-7562 OP-041 forbids EXTCODESIZE on an address
    ///      without code during validation, and the probe is a cold 2,600 gas).
    bool private _ownerIsContract;

    /// @notice Emitted when the owner is set at initialisation or replaced by the account itself.
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    /// @notice The caller may not do this (only the EntryPoint, the account itself, or its factory may).
    error OwnedAccountUnauthorized(address caller);
    /// @notice `initialize` was called on an account that already has an owner.
    error OwnedAccountAlreadyInitialized();
    /// @notice The zero address cannot own an account.
    error OwnedAccountInvalidOwner(address owner);
    /// @notice A call made by the account reverted without giving a reason.
    error OwnedAccountCallFailed();

    /// @dev Only the EntryPoint (a validated UserOperation) or the account itself may act.
    modifier onlyEntryPointOrSelf() {
        if (msg.sender != address(_entryPoint) && msg.sender != address(this)) {
            revert OwnedAccountUnauthorized(msg.sender);
        }
        _;
    }

    /// @param entryPoint_ The ERC-4337 v0.7 EntryPoint this account trusts.
    constructor(IEntryPoint entryPoint_) {
        _entryPoint = entryPoint_;
        _factory = msg.sender;
    }

    /// @notice Sets the first owner of a freshly cloned account; callable once, by the factory only.
    /// @param owner_ The initial owner (EOA or ERC-1271 contract).
    function initialize(address owner_) external {
        if (msg.sender != _factory) revert OwnedAccountUnauthorized(msg.sender);
        if (_owner != address(0)) revert OwnedAccountAlreadyInitialized();
        _setOwner(owner_);
    }

    /// @notice Replaces the owner; only through the account itself (a UserOperation signed by the
    ///         current owner calling this function), so the old owner's key stops working at once.
    /// @param newOwner The new owner (EOA or ERC-1271 contract).
    function transferOwnership(address newOwner) external {
        if (msg.sender != address(this)) revert OwnedAccountUnauthorized(msg.sender);
        _setOwner(newOwner);
    }

    /// @notice The address whose signatures this account accepts.
    function owner() public view returns (address) {
        return _owner;
    }

    /// @notice The EntryPoint this account trusts.
    function entryPoint() public view override returns (IEntryPoint) {
        return _entryPoint;
    }

    /// @inheritdoc TokenReceiver
    function supportsInterface(bytes4 interfaceId) public view virtual override returns (bool) {
        return interfaceId == type(IAccount).interfaceId || super.supportsInterface(interfaceId);
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

    function _requireFromEntryPoint() internal view override {
        if (msg.sender != address(_entryPoint)) revert OwnedAccountUnauthorized(msg.sender);
    }

    /// @dev True if `signature` is the owner's over `digest`: ECDSA for an EOA owner, ERC-1271 for a contract.
    function _isOwnerSignature(bytes32 digest, bytes calldata signature) internal view returns (bool) {
        address owner_ = _owner;
        if (_ownerIsContract) return SignatureChecker.isValidERC1271SignatureNow(owner_, digest, signature);
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(digest, signature);
        return err == ECDSA.RecoverError.NoError && recovered == owner_;
    }

    /// @dev Makes one call, bubbling the callee's revert data unchanged so that the EntryPoint's
    ///      UserOperationRevertReason event carries the real reason.
    function _call(address target, uint256 value, bytes calldata data) internal {
        (bool success, bytes memory result) = target.call{value: value}(data);
        if (!success) _revertWith(result);
    }

    /// @dev Re-throws `reason` as this call's revert data.
    function _revertWith(bytes memory reason) internal pure {
        if (reason.length == 0) revert OwnedAccountCallFailed();
        // Bubbling raw revert data has no Solidity syntax; it is read straight from memory.
        assembly ("memory-safe") {
            revert(add(reason, 0x20), mload(reason))
        }
    }

    function _setOwner(address newOwner) private {
        if (newOwner == address(0)) revert OwnedAccountInvalidOwner(newOwner);
        address previous = _owner;
        _owner = newOwner;
        // Decided once, here: an owner contract must already be deployed when it becomes the owner.
        _ownerIsContract = newOwner.code.length != 0;
        emit OwnershipTransferred(previous, newOwner);
    }
}
