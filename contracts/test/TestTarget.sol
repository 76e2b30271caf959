// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title TestTarget
/// @notice Test-only call target: records who called it and in which context, or fails on request.
contract TestTarget {
    /// @notice Emitted by `record`; under delegatecall the emitter and `self` are the calling account.
    event Recorded(address indexed self, address indexed caller, uint256 value, uint256 number);

    uint256 private _counter;

    /// @notice Failure with a reason, to check that reasons reach the EntryPoint's events.
    error TestTargetFailed(string reason);

    /// @notice Emits Recorded with the context it runs in.
    function record(uint256 number) external payable {
        emit Recorded(address(this), msg.sender, msg.value, number);
    }

    /// @notice Spends gas (about 400 per round: repeated writes of one slot), for gas-limit tests.
    function burn(uint256 rounds) external {
        for (uint256 i = 0; i < rounds; ++i) {
            _counter += i + 1;
        }
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
