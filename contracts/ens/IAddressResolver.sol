// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title IAddressResolver
/// @notice ENSIP-9 multichain address record: the address of a name for a SLIP-44 coin type, or for an EVM
///         chain's ENSIP-11 coin type `0x80000000 | chainId` (ENSIP-19: `0x80000000` alone is the default EVM one).
/// @dev Interface id 0xf1cb7e06. The idwallet resolver answers it through ENSIP-10 `resolve` only.
interface IAddressResolver {
    /// @notice The address of `node` for `coinType` in that coin's binary form (20 bytes for EVM), or empty.
    /// @param node The namehash of the name.
    /// @param coinType SLIP-44 coin type (60 for Ether) or ENSIP-11 EVM coin type.
    function addr(bytes32 node, uint256 coinType) external view returns (bytes memory);
}
