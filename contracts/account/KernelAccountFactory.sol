// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {ProxyAccountFactory} from "./ProxyAccountFactory.sol";
import {KernelAccount} from "./KernelAccount.sol";

/// @title KernelAccountFactory
/// @notice Deterministic factory of KernelAccount wallets (ERC-1967 proxies), one per user id.
contract KernelAccountFactory is ProxyAccountFactory {
    /// @param entryPoint The ERC-4337 v0.7 EntryPoint the accounts trust.
    /// @param custodian The operator's OwnerAccount, owner of every new account (need not be deployed yet).
    constructor(
        IEntryPoint entryPoint,
        address custodian
    ) ProxyAccountFactory(address(new KernelAccount(entryPoint, custodian))) {}
}
