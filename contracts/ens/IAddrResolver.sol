// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title IAddrResolver
/// @notice ENSIP-1 address record: the Ethereum address of a name.
/// @dev Interface id 0x3b3b57de. The idwallet resolver answers it through ENSIP-10 `resolve` only.
interface IAddrResolver {
    /// @notice The address of `node`, or the zero address.
    /// @param node The namehash of the name.
    function addr(bytes32 node) external view returns (address);
}
