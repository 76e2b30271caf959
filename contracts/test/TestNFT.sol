// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @title TestNFT
/// @notice Test-only ERC-721 anyone can mint.
contract TestNFT is ERC721 {
    constructor() ERC721("Test NFT", "TNFT") {}

    /// @notice Safely mints token `id` to `to`.
    function mint(address to, uint256 id) external {
        _safeMint(to, id);
    }
}
