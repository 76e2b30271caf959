// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {IExtendedResolver} from "../ens/IExtendedResolver.sol";

/// @title ResolverBatchReader
/// @notice Test-only: many ENSIP-10 `resolve` calls in one eth_call, each either answered or reverted (a revert,
///         such as an EIP-3668 OffchainLookup, is returned as the call's revert data).
contract ResolverBatchReader {
    /// @notice resolver.resolve(names[i], data[i]) for every i.
    /// @param resolver The extended resolver to ask.
    /// @param names DNS-encoded names.
    /// @param data The resolver calls, one per name.
    /// @return answered Whether each call returned.
    /// @return results Each call's return value, or its revert data.
    function resolveAll(
        IExtendedResolver resolver,
        bytes[] calldata names,
        bytes[] calldata data
    ) external view returns (bool[] memory answered, bytes[] memory results) {
        answered = new bool[](names.length);
        results = new bytes[](names.length);
        for (uint256 i = 0; i < names.length; ++i) {
            try resolver.resolve(names[i], data[i]) returns (bytes memory result) {
                (answered[i], results[i]) = (true, result);
            } catch (bytes memory reason) {
                results[i] = reason;
            }
        }
    }
}
