// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {OwnedAccount} from "./OwnedAccount.sol";

/// @title CloneAccountFactory
/// @notice Deploys one EIP-1167 clone of an account implementation per salt with CREATE2, so an
///         account's address is a function of this factory and the salt alone: no key, no chain id.
///         Every account starts with the same owner, fixed at construction, so creating an account is
///         permissionless (the EntryPoint's initCode does it) and cannot be front-run to another owner.
abstract contract CloneAccountFactory {
    /// @notice The implementation every account of this factory delegates to.
    address public immutable accountImplementation;
    /// @notice The owner each new account is initialised with.
    address public immutable initialOwner;

    /// @notice Emitted when an account is deployed for `salt`.
    event AccountCreated(address indexed account, bytes32 indexed salt);

    /// @notice The zero address cannot be the initial owner.
    error CloneAccountFactoryInvalidOwner();

    /// @param implementation The account implementation (created by the concrete factory).
    /// @param initialOwner_ The owner of every new account (an EOA or an ERC-1271 owner account).
    constructor(address implementation, address initialOwner_) {
        if (initialOwner_ == address(0)) revert CloneAccountFactoryInvalidOwner();
        accountImplementation = implementation;
        initialOwner = initialOwner_;
    }

    /// @notice Deploys the account for `salt`, or returns it if it exists (idempotent).
    /// @param salt The account's salt, derived off chain from the canonical user id.
    /// @return account The account's address.
    function createAccount(bytes32 salt) external returns (address account) {
        account = getAddress(salt);
        if (account.code.length != 0) return account;
        Clones.cloneDeterministic(accountImplementation, salt);
        OwnedAccount(payable(account)).initialize(initialOwner);
        emit AccountCreated(account, salt);
    }

    /// @notice The address the account for `salt` has (or will have) on every chain.
    /// @param salt The account's salt.
    function getAddress(bytes32 salt) public view returns (address) {
        return Clones.predictDeterministicAddress(accountImplementation, salt);
    }
}
