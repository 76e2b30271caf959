// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IExtendedResolver} from "./IExtendedResolver.sol";
import {IResolverService} from "./IResolverService.sol";
import {SignatureVerifier} from "./SignatureVerifier.sol";

/// @title OffchainResolver
/// @notice ENS resolver for `<username>.<provider>.<ens_domain>` and every other subname of the name
///         it is set on: each query is sent to the gateway (EIP-3668 CCIP-read), whose answer counts
///         only if one of the signer keys signed it for this resolver and it has not expired.
/// @dev Its address depends only on its owner (it is deployed through a deterministic deployment
///      proxy), so gateway URLs and signer keys are set after deployment and can be rotated.
contract OffchainResolver is IExtendedResolver, IERC165, Ownable2Step {
    string[] private _urls;
    mapping(address signer => bool) private _signers;

    /// @notice Emitted when the gateway URL templates become `urls`.
    event UrlsChanged(string[] urls);
    /// @notice Emitted when `signer` may sign gateway answers.
    event SignerAdded(address indexed signer);
    /// @notice Emitted when `signer` may no longer sign gateway answers.
    event SignerRemoved(address indexed signer);

    /// @notice EIP-3668: the client should call a gateway at `urls` with `callData`, then call
    ///         `callbackFunction(response, extraData)` on `sender`. Name and arguments are the standard's.
    error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData);
    /// @notice No gateway URL is set, so nothing can be resolved.
    error OffchainResolverNoUrls();
    /// @notice `signer` is the zero address, already a signer (add), or not a signer (remove); or the
    ///         key that signed a gateway answer is not a signer (resolveWithProof).
    error OffchainResolverInvalidSigner(address signer);

    /// @param owner_ Manages URLs and signers (two-step transferable). Passed explicitly because a
    ///        deterministic deployment's msg.sender is the deployment proxy.
    constructor(address owner_) Ownable(owner_) {}

    /// @notice Replaces the gateway URL templates (EIP-3668: `{sender}` and `{data}` are substituted;
    ///         without `{data}` the client POSTs).
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
        if (signer == address(0) || _signers[signer]) revert OffchainResolverInvalidSigner(signer);
        _signers[signer] = true;
        emit SignerAdded(signer);
    }

    /// @notice Stops `signer` from signing gateway answers, at once.
    /// @param signer The signer key to remove.
    function removeSigner(address signer) external onlyOwner {
        if (!_signers[signer]) revert OffchainResolverInvalidSigner(signer);
        _signers[signer] = false;
        emit SignerRemoved(signer);
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

    /// @notice ENSIP-10 entry point: always reverts with OffchainLookup, sending the query to the gateway.
    /// @param name The DNS wire-format encoding of the name being resolved.
    /// @param data The ABI-encoded resolver call.
    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory) {
        if (_urls.length == 0) revert OffchainResolverNoUrls();
        bytes memory callData = abi.encodeCall(IResolverService.resolve, (name, data));
        // The request travels back as extraData, so the callback verifies the signature against
        // exactly what was asked.
        revert OffchainLookup(address(this), _urls, callData, this.resolveWithProof.selector, callData);
    }

    /// @notice EIP-3668 callback: returns the gateway's answer if a signer signed it for this request.
    /// @param response abi.encode(bytes result, uint64 expires, bytes sig) from the gateway.
    /// @param extraData The request, as carried by the OffchainLookup revert.
    /// @return The ABI-encoded return value of the resolver call.
    function resolveWithProof(bytes calldata response, bytes calldata extraData) external view returns (bytes memory) {
        (address signer, bytes memory result) = SignatureVerifier.verify(extraData, response);
        if (!_signers[signer]) revert OffchainResolverInvalidSigner(signer);
        return result;
    }

    /// @notice ERC-165: IExtendedResolver (0x9061b923) and IERC165 (0x01ffc9a7).
    /// @param interfaceId The interface asked about.
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IExtendedResolver).interfaceId || interfaceId == type(IERC165).interfaceId;
    }
}
