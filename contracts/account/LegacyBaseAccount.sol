// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {OwnedAccount} from "./OwnedAccount.sol";

/// @title LegacyBaseAccount
/// @notice The deprecated `base` account type behind `POST /v1/base/tx`: plain calls and batches in the
///         interface's parallel-array shape, no delegatecall, no EIP-1271 signing.
contract LegacyBaseAccount is OwnedAccount {
    /// @notice The parallel arrays of a batch differ in length.
    error LegacyBaseAccountLengthMismatch(uint256 targets, uint256 values, uint256 datas);

    /// @param entryPoint_ The ERC-4337 v0.7 EntryPoint this account trusts.
    /// @param custodian_ The operator's OwnerAccount, owner of every account until handed over.
    constructor(IEntryPoint entryPoint_, address custodian_) OwnedAccount(entryPoint_, custodian_) {}

    /// @notice Makes one call; a revert bubbles up with the callee's reason.
    /// @param target The address called.
    /// @param value Native coin sent along.
    /// @param data The call data.
    function execute(address target, uint256 value, bytes calldata data) external onlyEntryPointOrSelf {
        _call(target, value, data);
    }

    /// @notice Makes several calls in order, all or nothing; entry i of each array forms call i.
    /// @param targets The addresses called.
    /// @param values Native coin sent with each call.
    /// @param datas The call data of each call.
    function executeBatch(
        address[] calldata targets,
        uint256[] calldata values,
        bytes[] calldata datas
    ) external onlyEntryPointOrSelf {
        if (targets.length != values.length || targets.length != datas.length) {
            revert LegacyBaseAccountLengthMismatch(targets.length, values.length, datas.length);
        }
        for (uint256 i = 0; i < targets.length; ++i) {
            _call(targets[i], values[i], datas[i]);
        }
    }

    /// @notice ERC-7579-style identifier of this implementation: vendor, account, version.
    function accountId() external pure returns (string memory) {
        return "idwallet.base.2.0.0";
    }
}
