// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {ERC1967Proxy} from "@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol";
import {Create2} from "@openzeppelin/contracts/utils/Create2.sol";

/// @title ProxyAccountFactory
/// @notice Deploys one ERC-1967 proxy per salt with CREATE2, pointing at the implementation this factory
///         created, so an account's address is a function of this factory and the salt alone: no key, no
///         chain id, no other contract's code. Creation is permissionless (the EntryPoint's initCode does it)
///         and sets nothing but the implementation: every account starts owned by the custodian its
///         implementation names, so nobody can front-run a creation to another owner, on any chain.
abstract contract ProxyAccountFactory {
    /// @notice The first implementation of every account of this factory (accounts may move on; see
    ///         OwnedAccount's governor).
    address public immutable accountImplementation;
    /// @dev keccak256 of ERC1967Proxy's creation code with its constructor arguments (the implementation, no
    ///      setup call): what CREATE2 hashes.
    bytes32 private immutable _proxyCodeHash;

    /// @notice Emitted when an account is deployed for `salt`.
    event AccountCreated(address indexed account, bytes32 indexed salt);

    /// @param implementation The account implementation (created by the concrete factory).
    constructor(address implementation) {
        accountImplementation = implementation;
        _proxyCodeHash = keccak256(abi.encodePacked(type(ERC1967Proxy).creationCode, abi.encode(implementation, bytes(""))));
    }

    /// @notice Deploys the account for `salt`, or returns it if it exists (idempotent).
    /// @param salt The account's salt, derived off chain from the canonical user id.
    /// @return account The account's address.
    function createAccount(bytes32 salt) external returns (address account) {
        account = getAddress(salt);
        if (account.code.length != 0) return account;
        new ERC1967Proxy{salt: salt}(accountImplementation, "");
        emit AccountCreated(account, salt);
    }

    /// @notice The address the account for `salt` has (or will have) on every chain.
    /// @param salt The account's salt.
    function getAddress(bytes32 salt) public view returns (address) {
        return Create2.computeAddress(salt, _proxyCodeHash);
    }
}
