// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IERC5267} from "@openzeppelin/contracts/interfaces/IERC5267.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {OwnedAccount} from "./OwnedAccount.sol";

/// @title KernelAccount
/// @notice idwallet's default account type: an ERC-4337 v0.7 wallet that runs calls, batches and
///         delegatecalls for its owner and signs for it under EIP-1271. The first implementation of every
///         kernel wallet's ERC-1967 proxy; frozen (its creation code is part of every wallet's address).
/// @dev EIP-1271 signatures are over a replay-safe EIP-712 wrapping of the hash whose domain names this
///      account but no chain: one owner holds many accounts, so the account must be in the domain, and
///      the wallet has the same address on every chain, so one signature serves them all (the sign
///      request of the interface names no chain). Messages that must be chain-bound carry their own
///      chain id, as EIP-712 application domains do.
contract KernelAccount is OwnedAccount, IERC1271, IERC5267 {
    /// @notice How a call is made: an ordinary call, or a delegatecall running the target's code on
    ///         this account's storage and balance.
    enum Operation {
        Call,
        DelegateCall
    }

    /// @notice One entry of a batch.
    struct Call {
        address target;
        uint256 value;
        bytes data;
        Operation operation;
    }

    bytes32 private constant _DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,address verifyingContract)");
    bytes32 private constant _MESSAGE_TYPEHASH = keccak256("KernelMessage(bytes32 hash)");
    string private constant _DOMAIN_NAME = "idwallet Kernel";
    string private constant _DOMAIN_VERSION = "1";

    /// @notice A delegatecall cannot carry native coin.
    error KernelAccountValueInDelegateCall(uint256 value);
    /// @notice Call `index` of a batch reverted with `reason`.
    error KernelAccountBatchCallFailed(uint256 index, bytes reason);

    /// @param entryPoint_ The ERC-4337 v0.7 EntryPoint this account trusts.
    /// @param custodian_ The operator's OwnerAccount, owner of every account until handed over.
    constructor(IEntryPoint entryPoint_, address custodian_) OwnedAccount(entryPoint_, custodian_) {}

    /// @notice Makes one call or delegatecall; a revert bubbles up with the callee's reason.
    /// @param target The address called.
    /// @param value Native coin sent along (must be 0 for a delegatecall).
    /// @param data The call data.
    /// @param operation Call or DelegateCall.
    function execute(
        address target,
        uint256 value,
        bytes calldata data,
        Operation operation
    ) external onlyEntryPointOrSelf {
        if (operation == Operation.Call) {
            _call(target, value, data);
        } else {
            _executeDelegateCall(target, value, data);
        }
    }

    /// @notice Makes several calls in order, all or nothing; a revert names the failing index.
    /// @param calls The calls, each a call or a delegatecall.
    function executeBatch(Call[] calldata calls) external onlyEntryPointOrSelf {
        for (uint256 i = 0; i < calls.length; ++i) {
            Call calldata c = calls[i];
            if (c.operation == Operation.DelegateCall && c.value != 0) revert KernelAccountValueInDelegateCall(c.value);
            (bool success, bytes memory result) = c.operation == Operation.Call
                ? c.target.call{value: c.value}(c.data)
                : _delegateCall(c.target, c.data);
            if (!success) revert KernelAccountBatchCallFailed(i, result);
        }
    }

    /// @notice EIP-1271: whether `signature` is the owner's over `replaySafeHash(hash)`.
    /// @param hash The hash the caller wants this account to have signed.
    /// @param signature The owner's signature (65-byte ECDSA, or whatever an ERC-1271 owner accepts).
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return _isOwnerSignature(replaySafeHash(hash), signature) ? this.isValidSignature.selector : bytes4(0xffffffff);
    }

    /// @notice The EIP-712 digest the owner signs so this account vouches for `hash`:
    ///         typed data `KernelMessage(bytes32 hash)` in the domain of `eip712Domain()`.
    /// @param hash The hash to be signed for.
    function replaySafeHash(bytes32 hash) public view returns (bytes32) {
        bytes32 domainSeparator = keccak256(
            abi.encode(_DOMAIN_TYPEHASH, keccak256(bytes(_DOMAIN_NAME)), keccak256(bytes(_DOMAIN_VERSION)), address(this))
        );
        return MessageHashUtils.toTypedDataHash(domainSeparator, keccak256(abi.encode(_MESSAGE_TYPEHASH, hash)));
    }

    /// @notice ERC-5267: the EIP-712 domain of `replaySafeHash` (name, version, verifyingContract; no chain id).
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0b", _DOMAIN_NAME, _DOMAIN_VERSION, 0, address(this), bytes32(0), new uint256[](0));
    }

    /// @notice ERC-7579-style identifier of this implementation: vendor, account, version.
    function accountId() external pure returns (string memory) {
        return "idwallet.kernel.2.0.0";
    }

    function _executeDelegateCall(address target, uint256 value, bytes calldata data) private {
        if (value != 0) revert KernelAccountValueInDelegateCall(value);
        (bool success, bytes memory result) = _delegateCall(target, data);
        if (!success) _revertWith(result);
    }
}
