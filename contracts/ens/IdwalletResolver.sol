// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {Create2} from "@openzeppelin/contracts/utils/Create2.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IAddrResolver} from "./IAddrResolver.sol";
import {IAddressResolver} from "./IAddressResolver.sol";
import {IERC7996} from "./IERC7996.sol";
import {IExtendedResolver} from "./IExtendedResolver.sol";
import {IResolverService} from "./IResolverService.sol";
import {IdwalletNames} from "./IdwalletNames.sol";
import {SignatureVerifier} from "./SignatureVerifier.sol";

/// @title IdwalletResolver
/// @notice ENS resolver for `<username labels>.<provider>.<domain>` and every other subname of the domain it is
///         set on (ENSIP-10). Address records of names whose labels are plain ASCII and whose provider is built
///         in are answered on chain: the resolver reads the user id from the name and derives the wallet's
///         CREATE2 address as the service does, so they resolve without the gateway. Every other query goes to
///         the gateway (EIP-3668 CCIP-read), whose answer counts only if one of the signer keys signed it for
///         this resolver and it has not expired.
/// @dev Successor of OffchainResolver, with the same gateway protocol. The wallet factory and the address formula
///      are constructor arguments, so its address depends on them, on the domain and on its owner only (it is
///      deployed through the deterministic deployment proxy); gateway URLs, signers and the chains whose ENSIP-11
///      coin types are answered are set after deployment.
contract IdwalletResolver is IExtendedResolver, IERC7996, IERC165, Ownable2Step {
    /// @dev ENSIP-22 feature "eth.ens.resolver.extended.multicall": `resolve` answers multicall(bytes[]).
    bytes4 private constant RESOLVE_MULTICALL_FEATURE = 0x96b62db8;
    /// @dev multicall(bytes[]) of ENS resolvers.
    bytes4 private constant MULTICALL_SELECTOR = 0xac9650d8;
    /// @dev SLIP-44 coin type of Ether (ENSIP-9).
    uint256 private constant COIN_TYPE_ETH = 60;
    /// @dev ENSIP-11 bit of EVM coin types; alone it is ENSIP-19's default EVM coin type.
    uint256 private constant COIN_TYPE_EVM = 0x80000000;
    /// @dev The salt of a kernel wallet is keccak256 of this prefix and the canonical user id (README "The
    ///      address formula"). Frozen with the formula.
    bytes private constant KERNEL_SALT_PREFIX = "idwallet:kernel:v1:";

    address private immutable _kernelFactory;
    bytes32 private immutable _walletInitCodeHash;
    bytes32 private immutable _domainNode;
    string[] private _urls;
    mapping(address signer => bool) private _signers;
    mapping(uint256 chainId => bool) private _chains;

    /// @notice Emitted when the gateway URL templates become `urls`.
    event UrlsChanged(string[] urls);
    /// @notice Emitted when `signer` may sign gateway answers.
    event SignerAdded(address indexed signer);
    /// @notice Emitted when `signer` may no longer sign gateway answers.
    event SignerRemoved(address indexed signer);
    /// @notice Emitted when the ENSIP-11 coin types of `chainIds` are answered (`answered`) or no longer.
    event ChainsChanged(uint256[] chainIds, bool answered);

    /// @notice EIP-3668: the client should call a gateway at `urls` with `callData`, then call
    ///         `callbackFunction(response, extraData)` on `sender`. Name and arguments are the standard's.
    error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData);
    /// @notice The query needs the gateway and no gateway URL is set.
    error IdwalletResolverNoUrls();
    /// @notice `signer` is the zero address, already a signer (add), or not a signer (remove); or the key that
    ///         signed a gateway answer is not a signer (resolveWithProof).
    error IdwalletResolverInvalidSigner(address signer);
    /// @notice `chainId` has no ENSIP-11 coin type of its own: 0 (the default EVM coin type is always answered),
    ///         1 (Ethereum's is 60) or 2^31 and above.
    error IdwalletResolverInvalidChain(uint256 chainId);
    /// @notice A record call of `resolve` asked about `asked`, not about the name's own node `node`.
    error IdwalletResolverNodeMismatch(bytes32 node, bytes32 asked);

    /// @param owner_ Manages URLs, signers and chains (two-step transferable). Passed explicitly because a
    ///        deterministic deployment's msg.sender is the deployment proxy.
    /// @param kernelFactory_ The KernelAccountFactory whose wallets the names stand for.
    /// @param walletInitCodeHash_ keccak256 of a wallet's creation code (the ERC1967Proxy of the factory's first
    ///        implementation), as gateway/identity/walletAddress.ts `proxyInitCodeHash` computes it.
    /// @param domainNode_ ENSIP-1 namehash of the domain, e.g. namehash("idwallet.eth").
    constructor(
        address owner_,
        address kernelFactory_,
        bytes32 walletInitCodeHash_,
        bytes32 domainNode_
    ) Ownable(owner_) {
        _kernelFactory = kernelFactory_;
        _walletInitCodeHash = walletInitCodeHash_;
        _domainNode = domainNode_;
    }

    /// @notice Replaces the gateway URL templates (EIP-3668: `{sender}` and `{data}` are substituted; without
    ///         `{data}` the client POSTs).
    /// @param newUrls The URL templates, tried in order by clients.
    function setUrls(string[] calldata newUrls) external onlyOwner {
        delete _urls;
        for (uint256 i = 0; i < newUrls.length; ++i) {
            _urls.push(newUrls[i]);
        }
        emit UrlsChanged(newUrls);
    }

    /// @notice Lets `signer` sign gateway answers.
    /// @param signer The new signer key.
    function addSigner(address signer) external onlyOwner {
        if (signer == address(0) || _signers[signer]) revert IdwalletResolverInvalidSigner(signer);
        _signers[signer] = true;
        emit SignerAdded(signer);
    }

    /// @notice Stops `signer` from signing gateway answers, at once.
    /// @param signer The signer key to remove.
    function removeSigner(address signer) external onlyOwner {
        if (!_signers[signer]) revert IdwalletResolverInvalidSigner(signer);
        _signers[signer] = false;
        emit SignerRemoved(signer);
    }

    /// @notice Answers (or stops answering) the wallet address for the ENSIP-11 coin type `0x80000000 | chainId`
    ///         of each chain, as the gateway does for every chain of its registry.
    /// @param chainIds EIP-155 chain ids, each in 2..2^31-1.
    /// @param answered Whether their coin types are answered.
    function setChains(uint256[] calldata chainIds, bool answered) external onlyOwner {
        for (uint256 i = 0; i < chainIds.length; ++i) {
            uint256 chainId = chainIds[i];
            if (chainId <= 1 || chainId >= COIN_TYPE_EVM) revert IdwalletResolverInvalidChain(chainId);
            _chains[chainId] = answered;
        }
        emit ChainsChanged(chainIds, answered);
    }

    /// @notice The gateway URL templates.
    function urls() external view returns (string[] memory) {
        return _urls;
    }

    /// @notice Whether `signer` may sign gateway answers.
    /// @param signer The key asked about.
    function isSigner(address signer) external view returns (bool) {
        return _signers[signer];
    }

    /// @notice Whether the wallet address is answered for the ENSIP-11 coin type of `chainId`.
    /// @param chainId The EIP-155 chain id asked about.
    function isChainAnswered(uint256 chainId) external view returns (bool) {
        return _chains[chainId];
    }

    /// @notice The factory whose wallets the names stand for.
    function kernelFactory() external view returns (address) {
        return _kernelFactory;
    }

    /// @notice keccak256 of a wallet's creation code, the CREATE2 init code hash of every wallet.
    function walletInitCodeHash() external view returns (bytes32) {
        return _walletInitCodeHash;
    }

    /// @notice ENSIP-1 namehash of the domain the names live under.
    function domainNode() external view returns (bytes32) {
        return _domainNode;
    }

    /// @notice The wallet `name` stands for, if it is derived on chain.
    /// @param name The DNS wire-format encoding of the name.
    /// @return onChain False when only the gateway can tell (the name is not plain ASCII, its provider is not
    ///         built in, or it is outside the domain).
    /// @return wallet The wallet's address; the zero address when the name stands for nobody.
    function walletOf(bytes calldata name) public view returns (bool onChain, address wallet) {
        bytes memory userId;
        (onChain, userId) = IdwalletNames.userIdOf(name, _domainNode);
        if (userId.length == 0) return (onChain, address(0));
        bytes32 salt = keccak256(bytes.concat(KERNEL_SALT_PREFIX, userId));
        return (true, Create2.computeAddress(salt, _walletInitCodeHash, _kernelFactory));
    }

    /// @notice ENSIP-10 entry point. Answers `addr(node)` and `addr(node, coinType)`, alone or as every item of a
    ///         `multicall(bytes[])`, on chain for names derived on chain; reverts OffchainLookup, sending the
    ///         query to the gateway, for everything else.
    /// @param name The DNS wire-format encoding of the name being resolved.
    /// @param data The ABI-encoded resolver call.
    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory) {
        (bool onChain, bytes memory result) = _answerOnChain(name, data);
        if (onChain) return result;
        if (_urls.length == 0) revert IdwalletResolverNoUrls();
        bytes memory callData = abi.encodeCall(IResolverService.resolve, (name, data));
        // The request travels back as extraData, so the callback verifies the signature against exactly what
        // was asked.
        revert OffchainLookup(address(this), _urls, callData, this.resolveWithProof.selector, callData);
    }

    /// @notice EIP-3668 callback: returns the gateway's answer if a signer signed it for this request.
    /// @param response abi.encode(bytes result, uint64 expires, bytes sig) from the gateway.
    /// @param extraData The request, as carried by the OffchainLookup revert.
    /// @return The ABI-encoded return value of the resolver call.
    function resolveWithProof(bytes calldata response, bytes calldata extraData) external view returns (bytes memory) {
        (address signer, bytes memory result) = SignatureVerifier.verify(extraData, response);
        if (!_signers[signer]) revert IdwalletResolverInvalidSigner(signer);
        return result;
    }

    /// @notice ERC-165: IERC165, IExtendedResolver (0x9061b923) and IERC7996 (0x582de3e7). The address records are
    ///         answered only through `resolve` (a node alone does not say which name it is), so their
    ///         interfaces are not claimed: a client that found them would call addr(node) directly.
    /// @param interfaceId The interface asked about.
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return
            interfaceId == type(IERC165).interfaceId ||
            interfaceId == type(IExtendedResolver).interfaceId ||
            interfaceId == type(IERC7996).interfaceId;
    }

    /// @notice ERC-7996: ENSIP-22 "eth.ens.resolver.extended.multicall" (0x96b62db8), `resolve` answers
    ///         multicall(bytes[]).
    /// @param featureId The feature asked about.
    function supportsFeature(bytes4 featureId) external pure returns (bool) {
        return featureId == RESOLVE_MULTICALL_FEATURE;
    }

    /// @dev The answer to `data` for `name` if it is an address query about a name derived on chain.
    function _answerOnChain(bytes calldata name, bytes calldata data) private view returns (bool, bytes memory) {
        bytes[] memory calls;
        bool multicall = data.length >= 4 && bytes4(data) == MULTICALL_SELECTOR;
        if (multicall) {
            calls = abi.decode(data[4:], (bytes[]));
        } else if (data.length <= 68) {
            // Only the short calls can be address calls: copy no other to memory.
            calls = new bytes[](1);
            calls[0] = data;
        } else {
            return (false, "");
        }
        // One item the gateway must answer sends the whole multicall there.
        for (uint256 i = 0; i < calls.length; ++i) {
            if (!_isAddressCall(calls[i])) return (false, "");
        }
        (bool onChain, address wallet) = walletOf(name);
        if (!onChain) return (false, "");
        // ENSIP-10 passes the name and, inside `data`, its node: an answer for `name` is no answer for another node,
        // which a caller that keys on the node (and takes the name from a user) would read as that node's.
        bytes32 node = IdwalletNames.namehash(name);
        for (uint256 i = 0; i < calls.length; ++i) {
            bytes memory item = calls[i];
            bytes32 asked;
            // The node is the first argument, the word after the 4-byte selector (checked present above): memory
            // at item + 32 (past the length word) + 4.
            assembly ("memory-safe") {
                asked := mload(add(item, 36))
            }
            if (asked != node) revert IdwalletResolverNodeMismatch(node, asked);
        }
        if (!multicall) return (true, _answerAddressCall(calls[0], wallet));
        bytes[] memory results = new bytes[](calls.length);
        for (uint256 i = 0; i < calls.length; ++i) {
            results[i] = _answerAddressCall(calls[i], wallet);
        }
        return (true, abi.encode(results));
    }

    /// @dev addr(bytes32) or addr(bytes32,uint256), encoded exactly as ABI encoders do (no trailing bytes).
    function _isAddressCall(bytes memory call) private pure returns (bool) {
        if (call.length == 36) return bytes4(call) == IAddrResolver.addr.selector;
        if (call.length == 68) return bytes4(call) == IAddressResolver.addr.selector;
        return false;
    }

    /// @dev The ABI-encoded answer to an address call for `wallet` (zero: the name stands for nobody). ENSIP-9:
    ///      an EVM address record is the 20 address bytes; a record not held is empty.
    function _answerAddressCall(bytes memory call, address wallet) private view returns (bytes memory) {
        if (call.length == 36) return abi.encode(wallet);
        // abi.decode reads whole words: 28 zero bytes in front make the selector a word and the coin type the third.
        (, , uint256 coinType) = abi.decode(bytes.concat(bytes28(0), call), (uint256, bytes32, uint256));
        bool held = wallet != address(0) && _isWalletCoinType(coinType);
        return abi.encode(held ? abi.encodePacked(wallet) : bytes(""));
    }

    /// @dev Coin types holding the wallet address: Ether's, the default EVM one, and the chains set by the owner
    ///      (gateway/ens/coinTypes.ts answers the same).
    function _isWalletCoinType(uint256 coinType) private view returns (bool) {
        if (coinType == COIN_TYPE_ETH || coinType == COIN_TYPE_EVM) return true;
        return coinType > COIN_TYPE_EVM && coinType < 2 * COIN_TYPE_EVM && _chains[coinType - COIN_TYPE_EVM];
    }
}
