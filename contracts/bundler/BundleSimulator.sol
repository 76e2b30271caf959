// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {IEntryPointSimulations} from "@account-abstraction/contracts/interfaces/IEntryPointSimulations.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";

/// @title BundleSimulator
/// @notice Never deployed: the service places its code at an unused address by an `eth_call` state override,
///         next to EntryPointSimulations at the EntryPoint's address, to simulate a whole bundle in one call.
///         One `simulateHandleOp` per operation, in order; a successful simulation's state changes stay, so each
///         operation sees the ones before it, as in the bundle.
contract BundleSimulator {
    /// @notice What one operation's simulation returned: the ABI-encoded ExecutionResult, or the revert data.
    ///         `simulated` is false for operations left out because the call's gas ran low.
    struct Outcome {
        bool simulated;
        bool success;
        bytes data;
    }

    /// @notice Simulates `ops` one after another against `entryPoint`, each with at most `gasPerOp` gas, so one
    ///         heavy operation cannot starve the others; once less than that is left, the rest are not simulated.
    /// @param entryPoint Where EntryPointSimulations answers (the EntryPoint's address, overridden).
    /// @param ops The operations, signed, with the gas limits to simulate them under.
    /// @param gasPerOp The most gas one operation's simulation may use.
    /// @return outcomes One per operation, in order.
    function simulateBundle(
        IEntryPointSimulations entryPoint,
        PackedUserOperation[] calldata ops,
        uint256 gasPerOp
    ) external returns (Outcome[] memory outcomes) {
        outcomes = new Outcome[](ops.length);
        for (uint256 i = 0; i < ops.length; ++i) {
            // The 1/64 the call withholds and the loop's own work stay with this frame.
            if (gasleft() < gasPerOp + gasPerOp / 63 + 50_000) break;
            (bool success, bytes memory data) = address(entryPoint).call{gas: gasPerOp}(
                abi.encodeCall(IEntryPointSimulations.simulateHandleOp, (ops[i], address(0), ""))
            );
            outcomes[i] = Outcome(true, success, data);
        }
    }
}
