// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title IDelegateCodeRegistry
/// @notice What a custodial wallet asks its custodian before a delegatecall: whether the target's code is allowed.
interface IDelegateCodeRegistry {
    /// @notice Whether a custodial wallet may delegatecall into code whose EXTCODEHASH is `codeHash`.
    /// @param codeHash The target's code hash.
    function isDelegateCode(bytes32 codeHash) external view returns (bool);
}
