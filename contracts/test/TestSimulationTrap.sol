// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title TestSimulationTrap
/// @notice Test-only contract playing a malicious app's call target: it deploys a victim's wallet only while the
///         service simulates (the simulator's code is then present at its address, by state override), so that the
///         victim's operation, validated after it in the same simulation, sees its wallet already deployed (AA10).
///         On chain it does nothing.
contract TestSimulationTrap {
    /// @notice Where the service's BundleSimulator is placed by state override during a simulation.
    address private constant _SIMULATOR = 0x000000000000000000000000000000000B5E4d1E;

    /// @notice Calls `factory` with `createData` (e.g. `createAccount(victimSalt)`), only under a simulation.
    /// @param factory The wallet factory.
    /// @param createData The factory call that deploys the victim's wallet.
    function trap(address factory, bytes calldata createData) external {
        if (_SIMULATOR.code.length == 0) return;
        (bool success, ) = factory.call(createData);
        success; // The trap's own outcome does not matter.
    }
}
