// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title WalletSlotReader
/// @notice Never deployed: the service places its code by an `eth_call` state override at an unused address, and at
///         each wallet it asks about a few bytes that return the wallet's owner and implementation slots (a code
///         override keeps the address's storage). A wallet's own code could answer anything about itself once its
///         user governs it; its storage cannot lie about which code it runs and which owner that code sees.
contract WalletSlotReader {
    /// @notice What one wallet holds in OwnedAccount's owner slot and the ERC-1967 implementation slot.
    struct Slots {
        bytes32 owner;
        bytes32 implementation;
    }

    /// @notice Each of `wallets`' two slots, as the code placed at the wallet returns them (zero when it answers
    ///         anything else).
    /// @param wallets The wallets asked about.
    /// @return slots One per wallet, in order.
    function read(address[] calldata wallets) external view returns (Slots[] memory slots) {
        slots = new Slots[](wallets.length);
        for (uint256 i = 0; i < wallets.length; ++i) {
            (bool success, bytes memory data) = wallets[i].staticcall("");
            if (success && data.length == 64) slots[i] = abi.decode(data, (Slots));
        }
    }
}
