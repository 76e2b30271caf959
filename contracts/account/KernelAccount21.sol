// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {SIG_VALIDATION_FAILED, SIG_VALIDATION_SUCCESS} from "@account-abstraction/contracts/core/Helpers.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IERC5267} from "@openzeppelin/contracts/interfaces/IERC5267.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {OwnedAccount} from "./OwnedAccount.sol";

/// @title KernelAccount21
/// @notice The kernel wallet's code 2.1.0: what 2.0.0 does (calls, batches, confined delegatecalls, EIP-1271 under
///         the same replay-safe hash, the same owner namespace and governor), with validation that public ERC-7562
///         bundlers accept. Existing wallets move to it with OwnerAccount.upgradeWallets; new ones start on it through
///         the KernelAccountCreator. Frozen once released, like every implementation.
/// @dev Validation reads nothing outside the wallet's own storage:
///      - a custodial wallet (owner slot empty) checks no signature itself: it accepts an operation only when its
///        paymasterAndData names the custody paymaster (an immutable here) and its `signature` is empty. The
///        paymaster, staked, checks the custody signature over every field of the operation against the
///        OwnerAccount's signers, so one `removeSigner` there still kills a stolen key for operations and for
///        EIP-1271 answers alike, and the EntryPoint executes nothing whose paymaster validation failed (AA34).
///        The empty `signature` keeps the userOpHash fixed by what the custody key signed: nobody can re-sign
///        an operation into another hash that the service would not recognise;
///      - a handed-over wallet checks its owner's EIP-191 signature of the userOpHash by ecrecover first, so an EOA
///        owner's operation touches no address without code (ERC-7562 OP-041), then asks a contract owner under
///        EIP-1271. It pays its own gas or uses any paymaster.
///      The execution half (execute, executeBatch, isValidSignature, replaySafeHash, eip712Domain) repeats 2.0.0's:
///      KernelAccount's source is frozen (its creation code is in every wallet's address), so it cannot be shared.
contract KernelAccount21 is OwnedAccount, IERC1271, IERC5267 {
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

    /// @dev The operator's OwnerAccount (OwnedAccount keeps its own copy private).
    address private immutable _custodianAccount;
    /// @notice The paymaster that authorizes every operation of a custodial wallet.
    address public immutable custodyPaymaster;

    /// @notice A delegatecall cannot carry native coin.
    error KernelAccountValueInDelegateCall(uint256 value);
    /// @notice Call `index` of a batch reverted with `reason`.
    error KernelAccountBatchCallFailed(uint256 index, bytes reason);
    /// @notice The custody paymaster must be a contract address.
    error KernelAccountInvalidPaymaster(address paymaster);

    /// @param entryPoint_ The ERC-4337 v0.7 EntryPoint this account trusts.
    /// @param custodian_ The operator's OwnerAccount, owner of every account until handed over.
    /// @param custodyPaymaster_ The paymaster whose approval is a custodial wallet's authorization.
    constructor(
        IEntryPoint entryPoint_,
        address custodian_,
        address custodyPaymaster_
    ) OwnedAccount(entryPoint_, custodian_) {
        if (custodyPaymaster_ == address(0)) revert KernelAccountInvalidPaymaster(custodyPaymaster_);
        _custodianAccount = custodian_;
        custodyPaymaster = custodyPaymaster_;
    }

    /// @notice ERC-4337: validates `userOp` (see the contract's notes) and pays what the EntryPoint misses.
    /// @param userOp The operation.
    /// @param userOpHash Its hash (EntryPoint, chain and every field).
    /// @param missingAccountFunds What this account must deposit (0 when a paymaster pays).
    function validateUserOp(
        PackedUserOperation calldata userOp,
        bytes32 userOpHash,
        uint256 missingAccountFunds
    ) external override returns (uint256 validationData) {
        _requireFromEntryPoint();
        address governor = owner();
        validationData = governor == _custodianAccount
            ? _custodialValidation(userOp)
            : _ownerValidation(governor, userOpHash, userOp.signature);
        _payPrefund(missingAccountFunds);
    }

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
            if (value != 0) revert KernelAccountValueInDelegateCall(value);
            (bool success, bytes memory result) = _delegateCall(target, data);
            if (!success) _revertWith(result);
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

    /// @notice EIP-1271: whether `signature` is the owner's over `replaySafeHash(hash)` (for a custodial wallet: a
    ///         signer of the OwnerAccount's, checked there, so a removed signer's answers stop verifying at once).
    /// @param hash The hash the caller wants this account to have signed.
    /// @param signature The owner's signature (65-byte ECDSA, or whatever an ERC-1271 owner accepts).
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return _isOwnerSignature(replaySafeHash(hash), signature) ? this.isValidSignature.selector : bytes4(0xffffffff);
    }

    /// @notice The EIP-712 digest the owner signs so this account vouches for `hash`:
    ///         typed data `KernelMessage(bytes32 hash)` in the domain of `eip712Domain()` (the same as 2.0.0's).
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
        return "idwallet.kernel.2.1.0";
    }

    /// @dev Valid only under the custody paymaster, with nothing in `signature` (see the contract's notes).
    function _custodialValidation(PackedUserOperation calldata userOp) private view returns (uint256) {
        bytes calldata paymasterAndData = userOp.paymasterAndData;
        bool underCustody = paymasterAndData.length >= 20 &&
            address(bytes20(paymasterAndData[:20])) == custodyPaymaster &&
            userOp.signature.length == 0;
        return underCustody ? SIG_VALIDATION_SUCCESS : SIG_VALIDATION_FAILED;
    }

    /// @dev The owner's EIP-191 signature of the userOpHash: ecrecover first (no code lookup for an EOA owner), then
    ///      EIP-1271 for a contract owner. A bad signature returns 1, never reverts.
    function _ownerValidation(
        address governor,
        bytes32 userOpHash,
        bytes calldata signature
    ) private view returns (uint256) {
        bytes32 digest = MessageHashUtils.toEthSignedMessageHash(userOpHash);
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(digest, signature);
        if (err == ECDSA.RecoverError.NoError && recovered == governor) return SIG_VALIDATION_SUCCESS;
        return
            SignatureChecker.isValidERC1271SignatureNow(governor, digest, signature)
                ? SIG_VALIDATION_SUCCESS
                : SIG_VALIDATION_FAILED;
    }
}
