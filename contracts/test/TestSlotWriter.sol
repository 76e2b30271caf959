// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title TestSlotWriter
/// @notice Test-only delegatecall target playing a thief: run by a wallet's delegatecall, it writes any storage
///         slot of the wallet, or makes the wallet call itself.
contract TestSlotWriter {
    /// @notice Writes `value` into `slot` of whoever runs this code.
    /// @param slot The storage slot.
    /// @param value The word written.
    function writeSlot(bytes32 slot, bytes32 value) external {
        // A raw SSTORE to an arbitrary slot has no Solidity syntax.
        assembly ("memory-safe") {
            sstore(slot, value)
        }
    }

    /// @notice Makes the account running this code call itself with `data`, bubbling a revert.
    /// @param data The call data of the self-call.
    function callSelf(bytes calldata data) external {
        (bool success, bytes memory result) = address(this).call(data);
        if (!success) {
            // Bubbling raw revert data has no Solidity syntax.
            assembly ("memory-safe") {
                revert(add(result, 0x20), mload(result))
            }
        }
    }
}
