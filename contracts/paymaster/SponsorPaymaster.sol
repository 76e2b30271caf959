// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {BasePaymaster} from "@account-abstraction/contracts/core/BasePaymaster.sol";
import {_packValidationData, calldataKeccak} from "@account-abstraction/contracts/core/Helpers.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";

/// @title SponsorPaymaster
/// @notice Pays the gas of UserOperations that one of its signer keys has approved for a time window,
///         so a wallet needs no native coin. The owner manages the signer set and the EntryPoint deposit.
/// @dev paymasterAndData (ERC-4337 v0.7): paymaster(20) | verificationGasLimit(16) | postOpGasLimit(16)
///      | validUntil(6) | validAfter(6) | signature(65). The signer signs getHash() as an EIP-191 message.
contract SponsorPaymaster is BasePaymaster {
    uint256 private constant _VALID_AFTER_OFFSET = PAYMASTER_DATA_OFFSET + 6;
    uint256 private constant _SIGNATURE_OFFSET = PAYMASTER_DATA_OFFSET + 12;
    uint256 private constant _SIGNATURE_LENGTH = 65;

    mapping(address signer => bool) private _signers;

    /// @notice Emitted when `signer` may approve sponsorships.
    event SignerAdded(address indexed signer);
    /// @notice Emitted when `signer` may no longer approve sponsorships.
    event SignerRemoved(address indexed signer);

    /// @notice `signer` is the zero address, already a signer (add), or not a signer (remove).
    error SponsorPaymasterInvalidSigner(address signer);
    /// @notice paymasterAndData has the wrong length for validity window plus a 65-byte signature.
    error SponsorPaymasterInvalidDataLength(uint256 length);

    /// @param entryPoint_ The ERC-4337 v0.7 EntryPoint.
    /// @param owner_ The owner (deposit, stake and signer management). Passed explicitly because a
    ///        deterministic deployment's msg.sender is the deployment proxy.
    constructor(IEntryPoint entryPoint_, address owner_) BasePaymaster(entryPoint_) {
        _transferOwnership(owner_);
    }

    /// @notice Lets `signer` approve sponsorships.
    /// @param signer The new signer key.
    function addSigner(address signer) external onlyOwner {
        if (signer == address(0) || _signers[signer]) revert SponsorPaymasterInvalidSigner(signer);
        _signers[signer] = true;
        emit SignerAdded(signer);
    }

    /// @notice Stops `signer` from approving sponsorships.
    /// @param signer The signer key to remove.
    function removeSigner(address signer) external onlyOwner {
        if (!_signers[signer]) revert SponsorPaymasterInvalidSigner(signer);
        _signers[signer] = false;
        emit SignerRemoved(signer);
    }

    /// @notice Whether `signer` may approve sponsorships.
    /// @param signer The key asked about.
    function isSigner(address signer) external view returns (bool) {
        return _signers[signer];
    }

    /// @notice The hash a signer approves: every field of the UserOperation except the signatures,
    ///         the paymaster's gas limits, the chain, this paymaster and the validity window.
    /// @param userOp The UserOperation (its paymasterAndData must hold at least the gas limits).
    /// @param validUntil Last second the sponsorship is valid (0 = no end).
    /// @param validAfter First second the sponsorship is valid.
    function getHash(
        PackedUserOperation calldata userOp,
        uint48 validUntil,
        uint48 validAfter
    ) public view returns (bytes32) {
        bytes32 opFields = keccak256(
            abi.encode(
                userOp.sender,
                userOp.nonce,
                calldataKeccak(userOp.initCode),
                calldataKeccak(userOp.callData),
                userOp.accountGasLimits,
                bytes32(userOp.paymasterAndData[PAYMASTER_VALIDATION_GAS_OFFSET:PAYMASTER_DATA_OFFSET]),
                userOp.preVerificationGas,
                userOp.gasFees
            )
        );
        return keccak256(abi.encode(opFields, block.chainid, address(this), validUntil, validAfter));
    }

    /// @notice Splits the paymaster-specific part of paymasterAndData.
    /// @param paymasterAndData The UserOperation's paymasterAndData.
    function parsePaymasterData(
        bytes calldata paymasterAndData
    ) public pure returns (uint48 validUntil, uint48 validAfter, bytes calldata signature) {
        if (paymasterAndData.length != _SIGNATURE_OFFSET + _SIGNATURE_LENGTH) {
            revert SponsorPaymasterInvalidDataLength(paymasterAndData.length);
        }
        validUntil = uint48(bytes6(paymasterAndData[PAYMASTER_DATA_OFFSET:_VALID_AFTER_OFFSET]));
        validAfter = uint48(bytes6(paymasterAndData[_VALID_AFTER_OFFSET:_SIGNATURE_OFFSET]));
        signature = paymasterAndData[_SIGNATURE_OFFSET:];
    }

    /// @dev A bad signature returns "failed" validation data instead of reverting (ERC-4337), so
    ///      estimation with a dummy signature works; the EntryPoint enforces the time window.
    function _validatePaymasterUserOp(
        PackedUserOperation calldata userOp,
        bytes32,
        uint256
    ) internal view override returns (bytes memory context, uint256 validationData) {
        (uint48 validUntil, uint48 validAfter, bytes calldata signature) = parsePaymasterData(userOp.paymasterAndData);
        bytes32 digest = MessageHashUtils.toEthSignedMessageHash(getHash(userOp, validUntil, validAfter));
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(digest, signature);
        bool approved = err == ECDSA.RecoverError.NoError && _signers[recovered];
        return ("", _packValidationData(!approved, validUntil, validAfter));
    }
}
