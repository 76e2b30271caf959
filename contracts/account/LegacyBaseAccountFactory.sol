// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {CloneAccountFactory} from "./CloneAccountFactory.sol";
import {LegacyBaseAccount} from "./LegacyBaseAccount.sol";

/// @title LegacyBaseAccountFactory
/// @notice Deterministic factory of the deprecated LegacyBaseAccount clones, one per user id.
contract LegacyBaseAccountFactory is CloneAccountFactory {
    /// @param entryPoint The ERC-4337 v0.7 EntryPoint the accounts trust.
    /// @param initialOwner_ The owner of every new account.
    constructor(
        IEntryPoint entryPoint,
        address initialOwner_
    ) CloneAccountFactory(address(new LegacyBaseAccount(entryPoint)), initialOwner_) {}
}
