// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title IExtendedResolver
/// @notice ENSIP-10 wildcard resolution: a resolver that answers for a name and all its subnames.
/// @dev Interface id 0x9061b923. Clients find the resolver of the nearest ancestor in the registry
///      and, if it supports this interface, call `resolve` instead of the record function directly.
interface IExtendedResolver {
    /// @notice Answers one resolver call (e.g. `addr(bytes32)`) for `name`.
    /// @param name The DNS wire-format encoding of the name being resolved.
    /// @param data The ABI-encoded resolver call, e.g. `addr(namehash(name))`.
    /// @return The ABI-encoded return value of that call.
    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory);
}
