// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {CloneAccountFactory} from "./CloneAccountFactory.sol";
import {KernelAccount} from "./KernelAccount.sol";

/// @title KernelAccountFactory
/// @notice Deterministic factory of KernelAccount clones, one per user id.
contract KernelAccountFactory is CloneAccountFactory {
    /// @param entryPoint The ERC-4337 v0.7 EntryPoint the accounts trust.
    /// @param initialOwner_ The owner of every new account.
    constructor(
        IEntryPoint entryPoint,
        address initialOwner_
    ) CloneAccountFactory(address(new KernelAccount(entryPoint)), initialOwner_) {}
}
