// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title TestTarget
/// @notice Test-only call target: records who called it and in which context, or fails on request.
contract TestTarget {
    /// @notice Emitted by `record`; under delegatecall the emitter and `self` are the calling account.
    event Recorded(address indexed self, address indexed caller, uint256 value, uint256 number);

    /// @notice Failure with a reason, to check that reasons reach the EntryPoint's events.
    error TestTargetFailed(string reason);

    /// @notice Emits Recorded with the context it runs in.
    function record(uint256 number) external payable {
        emit Recorded(address(this), msg.sender, msg.value, number);
    }

    /// @notice Always reverts with `reason`.
    function fail(string calldata reason) external pure {
        revert TestTargetFailed(reason);
    }

    /// @notice Always reverts with `reason` as Error(string), the form most deployed contracts use.
    function failWithMessage(string calldata reason) external pure {
        revert(reason);
    }
}
