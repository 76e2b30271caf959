// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {BasePaymaster} from "@account-abstraction/contracts/core/BasePaymaster.sol";
import {_packValidationData, calldataKeccak} from "@account-abstraction/contracts/core/Helpers.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @notice The signer set the custody paymaster trusts: the OwnerAccount's.
interface ICustodySigners {
    /// @notice Whether `signer` may sign for the wallets.
    function isSigner(address signer) external view returns (bool);
}

/// @title CustodyPaymaster
/// @notice Pays for, and authorizes, the operations of custodial wallets on code 2.1 and later: a wallet whose owner
///         slot is empty accepts an operation only under this paymaster, which accepts it only with a signature of one
///         of the OwnerAccount's signers. One signature covers a whole bundle: it is over the root of a Merkle tree
///         whose leaves are the bundle's operations, and each operation carries its proof.
/// @dev paymasterAndData (ERC-4337 v0.7): paymaster(20) | verificationGasLimit(16) | postOpGasLimit(16) |
///      validUntil(6) | validAfter(6) | rootSignature(65) | proof(32 each, at most MAX_PROOF_LENGTH).
///      - A leaf is keccak256(keccak256(abi.encode(getHash(op, validUntil, validAfter)))): double-hashed, so no inner
///        node of a tree (64 bytes hashed once) passes for a leaf. Pairs are hashed sorted (OpenZeppelin's MerkleProof),
///        so a proof is just the siblings. A bundle of one has no proof: its root is its leaf.
///      - The signed digest is EIP-712 `BundleRoot(bytes32 root,address entryPoint)` in this paymaster's domain (chain
///        id, this address): never a bare root, because the OwnerAccount answers EIP-1271 for any raw 32-byte digest a
///        signer signed, and a root signature must mean nothing anywhere else.
///      - The signer set is the OwnerAccount's (`isSigner`), not one of its own: one `removeSigner` per chain kills a
///        stolen key for operations and for EIP-1271 answers at once. Reading another contract's storage during
///        validation is allowed to a staked paymaster (ERC-7562, STO-033), so this paymaster must be staked.
///      - A bad signature or proof returns "failed" validation data instead of reverting (ERC-4337), so estimation with
///        a placeholder works; the EntryPoint enforces the time window.
contract CustodyPaymaster is BasePaymaster, EIP712 {
    /// @notice The most proof entries an operation may carry: bundles of up to 1,024 operations.
    uint256 public constant MAX_PROOF_LENGTH = 10;
    bytes32 private constant _BUNDLE_ROOT_TYPEHASH = keccak256("BundleRoot(bytes32 root,address entryPoint)");
    uint256 private constant _VALID_AFTER_OFFSET = PAYMASTER_DATA_OFFSET + 6;
    uint256 private constant _SIGNATURE_OFFSET = PAYMASTER_DATA_OFFSET + 12;
    uint256 private constant _PROOF_OFFSET = _SIGNATURE_OFFSET + 65;

    /// @notice The OwnerAccount whose signers authorize custodial operations.
    ICustodySigners public immutable custodian;

    /// @notice paymasterAndData is not the terms, a 65-byte signature and whole proof entries (at most the maximum).
    error CustodyPaymasterInvalidDataLength(uint256 length);

    /// @param entryPoint_ The ERC-4337 v0.7 EntryPoint.
    /// @param custodian_ The operator's OwnerAccount.
    /// @param owner_ The owner (deposit and stake): the operator's cold admin. Passed explicitly because a
    ///        deterministic deployment's msg.sender is the deployment proxy.
    constructor(
        IEntryPoint entryPoint_,
        ICustodySigners custodian_,
        address owner_
    ) BasePaymaster(entryPoint_) EIP712("idwallet custody", "1") {
        custodian = custodian_;
        _transferOwnership(owner_);
    }

    /// @notice The hash of an operation's terms: every field except the signatures, the paymaster's gas limits, the
    ///         chain, this paymaster and the validity window (the same fields as the SponsorPaymaster's).
    /// @param userOp The operation (its paymasterAndData must hold at least the gas limits).
    /// @param validUntil Last second the approval is valid (0 = no end).
    /// @param validAfter First second the approval is valid.
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

    /// @notice The EIP-712 digest a signer signs for a bundle whose tree has `root`.
    /// @param root The Merkle root over the bundle's leaves.
    function rootDigest(bytes32 root) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(_BUNDLE_ROOT_TYPEHASH, root, address(entryPoint))));
    }

    /// @notice Splits the paymaster-specific part of paymasterAndData.
    /// @param paymasterAndData The operation's paymasterAndData.
    function parsePaymasterData(
        bytes calldata paymasterAndData
    ) public pure returns (uint48 validUntil, uint48 validAfter, bytes calldata signature, bytes calldata proof) {
        uint256 length = paymasterAndData.length;
        if (length < _PROOF_OFFSET || (length - _PROOF_OFFSET) % 32 != 0) {
            revert CustodyPaymasterInvalidDataLength(length);
        }
        if ((length - _PROOF_OFFSET) / 32 > MAX_PROOF_LENGTH) revert CustodyPaymasterInvalidDataLength(length);
        validUntil = uint48(bytes6(paymasterAndData[PAYMASTER_DATA_OFFSET:_VALID_AFTER_OFFSET]));
        validAfter = uint48(bytes6(paymasterAndData[_VALID_AFTER_OFFSET:_SIGNATURE_OFFSET]));
        signature = paymasterAndData[_SIGNATURE_OFFSET:_PROOF_OFFSET];
        proof = paymasterAndData[_PROOF_OFFSET:];
    }

    /// @dev Approved when a signer of the custodian signed the root the operation's leaf and proof lead to.
    function _validatePaymasterUserOp(
        PackedUserOperation calldata userOp,
        bytes32,
        uint256
    ) internal view override returns (bytes memory context, uint256 validationData) {
        (uint48 validUntil, uint48 validAfter, bytes calldata signature, bytes calldata proof) = parsePaymasterData(
            userOp.paymasterAndData
        );
        bytes32 node = keccak256(bytes.concat(keccak256(abi.encode(getHash(userOp, validUntil, validAfter)))));
        // OpenZeppelin's commutativeKeccak256 over each 32-byte entry, read straight from calldata in the scratch
        // space: ~100 gas an entry instead of ~540 with slices (parsePaymasterData checked whole entries).
        assembly ("memory-safe") {
            let end := add(proof.offset, proof.length)
            for {
                let at := proof.offset
            } lt(at, end) {
                at := add(at, 32)
            } {
                let sibling := calldataload(at)
                switch lt(node, sibling)
                case 1 {
                    mstore(0x00, node)
                    mstore(0x20, sibling)
                }
                default {
                    mstore(0x00, sibling)
                    mstore(0x20, node)
                }
                node := keccak256(0x00, 0x40)
            }
        }
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(rootDigest(node), signature);
        bool approved = err == ECDSA.RecoverError.NoError && custodian.isSigner(recovered);
        return ("", _packValidationData(!approved, validUntil, validAfter));
    }
}
