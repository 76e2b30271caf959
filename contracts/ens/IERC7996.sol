// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title IERC7996
/// @notice ERC-7996 contract feature detection: capabilities that no ERC-165 interface can express, such as
///         ENSIP-22's `resolve(name, multicall(...))`.
/// @dev Interface id 0x582de3e7. A feature id is the first four bytes of the keccak256 of its name.
interface IERC7996 {
    /// @notice Whether the contract has the feature `featureId`.
    /// @param featureId bytes4(keccak256(feature name)), e.g. 0x96b62db8 for "eth.ens.resolver.extended.multicall".
    /// @return True if the feature is supported.
    function supportsFeature(bytes4 featureId) external view returns (bool);
}
