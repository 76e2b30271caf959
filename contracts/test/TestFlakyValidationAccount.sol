// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {UUPSUpgradeable} from "@openzeppelin/contracts/proxy/utils/UUPSUpgradeable.sol";

/// @title TestFlakyValidationAccount
/// @notice Test-only wallet code a user may move a wallet handed to their key to: its validation accepts every
///         operation under an `eth_call` (no fees given: gas price 0) and reverts in a mined transaction, so every
///         simulation and bundle check passes and every bundle carrying it reverts on chain. It also poses as a
///         custodial wallet: `owner()` names the operator's custodian and the owner slot is cleared.
contract TestFlakyValidationAccount is UUPSUpgradeable {
    /// @dev OwnedAccount's ERC-7201 owner slot.
    bytes32 private constant _OWNER_SLOT = 0x63a81ca6a732d95017419e12c9019b5bc15e8c6140f52bbda4339d206101bc00;
    /// @dev Where this code keeps the key that governs it.
    bytes32 private constant _HOLDER_SLOT = keccak256("test.flaky.holder");

    address private immutable _entryPoint;
    address private immutable _custodian;

    /// @param entryPoint_ The EntryPoint it answers.
    /// @param custodian_ The custodian it claims as owner.
    constructor(address entryPoint_, address custodian_) {
        _entryPoint = entryPoint_;
        _custodian = custodian_;
    }

    /// @notice Run by upgradeToAndCall: keeps `holder` as governor and clears the owner slot.
    /// @param holder The user's key.
    function initialize(address holder) external {
        bytes32 holderSlot = _HOLDER_SLOT;
        assembly ("memory-safe") {
            sstore(_OWNER_SLOT, 0)
            sstore(holderSlot, holder)
        }
    }

    /// @notice Claims the custodian, whoever holds the wallet.
    function owner() external view returns (address) {
        return _custodian;
    }

    /// @notice ERC-4337: valid under eth_call, a revert when mined.
    function validateUserOp(PackedUserOperation calldata, bytes32, uint256) external view returns (uint256) {
        require(msg.sender == _entryPoint, "not the EntryPoint");
        require(tx.gasprice == 0, "only under eth_call");
        return 0;
    }

    /// @notice Any call (execute, executeBatch) succeeds and does nothing.
    fallback() external payable {}

    /// @notice Receives ether.
    receive() external payable {}

    function _authorizeUpgrade(address) internal view override {
        bytes32 holderSlot = _HOLDER_SLOT;
        address holder;
        assembly ("memory-safe") {
            holder := sload(holderSlot)
        }
        require(msg.sender == holder, "not the holder");
    }
}
