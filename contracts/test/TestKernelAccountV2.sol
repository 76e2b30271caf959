// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {KernelAccount} from "../account/KernelAccount.sol";

/// @title TestKernelAccountV2
/// @notice Test-only second implementation of the kernel wallet: the first one plus one function, to prove that
///         wallets move to new code without moving their address, owner or balances.
contract TestKernelAccountV2 is KernelAccount {
    /// @param entryPoint_ The ERC-4337 v0.7 EntryPoint this account trusts.
    /// @param custodian_ The operator's OwnerAccount.
    constructor(IEntryPoint entryPoint_, address custodian_) KernelAccount(entryPoint_, custodian_) {}

    /// @notice The function the first implementation does not have.
    function upgradedGreeting() external pure returns (string memory) {
        return "running the second implementation";
    }
}
