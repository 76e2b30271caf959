// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

/// @title TestMultiToken
/// @notice Test-only ERC-1155 anyone can mint.
contract TestMultiToken is ERC1155 {
    constructor() ERC1155("") {}

    /// @notice Mints `amount` of token `id` to `to` (a safe transfer: contracts must accept it).
    function mint(address to, uint256 id, uint256 amount) external {
        _mint(to, id, amount, "");
    }
}
