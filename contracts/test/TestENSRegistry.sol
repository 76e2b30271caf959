// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title TestENSRegistry
/// @notice Test-only EIP-137 registry (no operators): lets a local chain resolve ENS names through
///         ethers' EnsPlugin. The root node is owned by the deployer.
contract TestENSRegistry {
    struct Record {
        address owner;
        address resolver;
        uint64 ttl;
    }

    mapping(bytes32 node => Record) private _records;

    /// @notice EIP-137: the owner of `node` made `owner` the owner of the subnode `label`.
    event NewOwner(bytes32 indexed node, bytes32 indexed label, address owner);
    /// @notice EIP-137: the owner of `node` transferred it to `owner`.
    event Transfer(bytes32 indexed node, address owner);
    /// @notice EIP-137: the resolver of `node` became `resolver`.
    event NewResolver(bytes32 indexed node, address resolver);
    /// @notice EIP-137: the TTL of `node` became `ttl`.
    event NewTTL(bytes32 indexed node, uint64 ttl);

    /// @notice `caller` does not own `node`.
    error TestENSRegistryUnauthorized(bytes32 node, address caller);

    modifier onlyNodeOwner(bytes32 node) {
        if (_records[node].owner != msg.sender) revert TestENSRegistryUnauthorized(node, msg.sender);
        _;
    }

    constructor() {
        _records[bytes32(0)].owner = msg.sender;
    }

    /// @notice Transfers `node` to `owner_`.
    /// @param node The namehash of the name.
    /// @param owner_ The new owner.
    function setOwner(bytes32 node, address owner_) external onlyNodeOwner(node) {
        _records[node].owner = owner_;
        emit Transfer(node, owner_);
    }

    /// @notice Creates or reassigns the subnode `keccak256(node ‖ label)`; its resolver and TTL stay.
    /// @param node The namehash of the parent.
    /// @param label The keccak256 of the subnode's label.
    /// @param owner_ The subnode's new owner.
    /// @return The subnode's namehash.
    function setSubnodeOwner(
        bytes32 node,
        bytes32 label,
        address owner_
    ) external onlyNodeOwner(node) returns (bytes32) {
        return _setSubnodeOwner(node, label, owner_);
    }

    /// @notice Sets the subnode's owner, resolver and TTL at once.
    /// @param node The namehash of the parent.
    /// @param label The keccak256 of the subnode's label.
    /// @param owner_ The subnode's new owner.
    /// @param resolver_ The subnode's resolver.
    /// @param ttl_ The subnode's TTL.
    function setSubnodeRecord(
        bytes32 node,
        bytes32 label,
        address owner_,
        address resolver_,
        uint64 ttl_
    ) external onlyNodeOwner(node) {
        bytes32 subnode = _setSubnodeOwner(node, label, owner_);
        _records[subnode].resolver = resolver_;
        emit NewResolver(subnode, resolver_);
        _records[subnode].ttl = ttl_;
        emit NewTTL(subnode, ttl_);
    }

    /// @notice Sets the resolver of `node`.
    /// @param node The namehash of the name.
    /// @param resolver_ The resolver contract.
    function setResolver(bytes32 node, address resolver_) external onlyNodeOwner(node) {
        _records[node].resolver = resolver_;
        emit NewResolver(node, resolver_);
    }

    /// @notice Sets the caching TTL of `node`.
    /// @param node The namehash of the name.
    /// @param ttl_ The TTL in seconds.
    function setTTL(bytes32 node, uint64 ttl_) external onlyNodeOwner(node) {
        _records[node].ttl = ttl_;
        emit NewTTL(node, ttl_);
    }

    /// @notice The owner of `node`.
    /// @param node The namehash of the name.
    function owner(bytes32 node) external view returns (address) {
        return _records[node].owner;
    }

    /// @notice The resolver of `node`.
    /// @param node The namehash of the name.
    function resolver(bytes32 node) external view returns (address) {
        return _records[node].resolver;
    }

    /// @notice The caching TTL of `node`.
    /// @param node The namehash of the name.
    function ttl(bytes32 node) external view returns (uint64) {
        return _records[node].ttl;
    }

    /// @notice Whether `node` has an owner.
    /// @param node The namehash of the name.
    function recordExists(bytes32 node) external view returns (bool) {
        return _records[node].owner != address(0);
    }

    function _setSubnodeOwner(bytes32 node, bytes32 label, address owner_) private returns (bytes32 subnode) {
        subnode = keccak256(abi.encodePacked(node, label));
        _records[subnode].owner = owner_;
        emit NewOwner(node, label, owner_);
    }
}
