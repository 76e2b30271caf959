// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC1822Proxiable} from "@openzeppelin/contracts/interfaces/draft-IERC1822.sol";
import {ERC1967Utils} from "@openzeppelin/contracts/proxy/ERC1967/ERC1967Utils.sol";
import {OwnerAccount} from "../owner/OwnerAccount.sol";
import {OwnedAccount} from "./OwnedAccount.sol";
import {ProxyAccountFactory} from "./ProxyAccountFactory.sol";

/// @title KernelAccountCreator
/// @notice Creates kernel wallets on current code. The frozen factory's proxy starts every wallet on the first
///         implementation, which only the OwnerAccount's admin can move; this contract is that admin, and its
///         permissionless `createAccount` creates a wallet and moves it to `implementation` in the same call. Used as
///         a UserOperation's initCode factory, the wallet keeps its address (CREATE2 still runs in the frozen factory)
///         and its first validation already runs the current code.
/// @dev Everything else the OwnerAccount's admin may do (signers, upgrades, hand-overs, delegate code, moving the admin
///      role back to a key) is forwarded from this contract's owner, the operator's cold key, by `forward`. It keeps
///      no other power and is not upgradeable. Under ERC-7562 it must be staked: its validation-time creation reads
///      its own storage (STO-031) and the OwnerAccount's owner slot (STO-033), and makes the sender's single CREATE2
///      through the factory (OP-031).
contract KernelAccountCreator is Ownable2Step {
    /// @notice The OwnerAccount whose admin this contract is.
    OwnerAccount public immutable ownerAccount;
    /// @notice The frozen factory whose wallets it creates.
    ProxyAccountFactory public immutable factory;
    /// @notice The EntryPoint it stakes at.
    IEntryPoint public immutable entryPoint;
    /// @notice The code new wallets start on.
    address public implementation;

    /// @notice Emitted when new wallets start on `implementation` from now on.
    event ImplementationSet(address indexed implementation);

    /// @notice `implementation` is no UUPS implementation naming this OwnerAccount as its custodian.
    error KernelAccountCreatorInvalidImplementation(address implementation);
    /// @notice A forwarded call to the OwnerAccount reverted without giving a reason.
    error KernelAccountCreatorForwardFailed();
    /// @notice The wallet at `account` is not a custodial wallet left on the factory's first implementation, or new
    ///         wallets start on that implementation themselves (a rollback): there is nothing to move.
    error KernelAccountCreatorNothingToMove(address account);
    /// @notice The admin role cannot be renounced: the wallets would lose their governor.
    error KernelAccountCreatorCannotRenounce();

    /// @param ownerAccount_ The operator's OwnerAccount (its admin must then hand its role to this contract).
    /// @param factory_ The frozen kernel factory.
    /// @param entryPoint_ The ERC-4337 v0.7 EntryPoint.
    /// @param implementation_ The code new wallets start on.
    /// @param owner_ The operator's cold admin key. Passed explicitly because a deterministic deployment's
    ///        msg.sender is the deployment proxy.
    constructor(
        OwnerAccount ownerAccount_,
        ProxyAccountFactory factory_,
        IEntryPoint entryPoint_,
        address implementation_,
        address owner_
    ) Ownable(owner_) {
        ownerAccount = ownerAccount_;
        factory = factory_;
        entryPoint = entryPoint_;
        _setImplementation(implementation_);
    }

    /// @notice Creates the wallet for `salt` on the current code, or returns it if it has code already (whatever code:
    ///         a wallet created through the frozen factory directly stays where it is, for the admin to move).
    /// @param salt The wallet's salt, derived off chain from the canonical user id.
    /// @return account The wallet's address, the frozen factory's for `salt`.
    function createAccount(bytes32 salt) external returns (address account) {
        account = factory.getAddress(salt);
        if (account.code.length != 0) return account;
        if (implementation == factory.accountImplementation()) {
            factory.createAccount(salt);
        } else {
            bytes32[] memory salts = new bytes32[](1);
            salts[0] = salt;
            ownerAccount.upgradeWallets(factory, salts, implementation, "");
        }
    }

    /// @notice Moves the wallet for `salt` to the current implementation when it was created on the factory's first
    ///         one and is custodial: anyone may create a wallet through the frozen factory directly (ahead of its first
    ///         operation, or from another wallet's calls), leaving it on code that public ERC-7562 bundlers refuse;
    ///         anyone may then move it on, to the code the cold key chose and nothing else. Nothing moves while new
    ///         wallets start on the first implementation (a rollback sets it first), or for a handed-over wallet.
    /// @param salt The wallet's salt.
    function moveToCurrent(bytes32 salt) external {
        address account = factory.getAddress(salt);
        address first = factory.accountImplementation();
        if (
            implementation == first ||
            account.code.length == 0 ||
            OwnedAccount(payable(account)).implementation() != first ||
            OwnedAccount(payable(account)).owner() != address(ownerAccount)
        ) revert KernelAccountCreatorNothingToMove(account);
        bytes32[] memory salts = new bytes32[](1);
        salts[0] = salt;
        ownerAccount.upgradeWallets(factory, salts, implementation, "");
    }

    /// @notice Refused: without an admin the wallets would have no governor (move the role to a key with `forward`).
    function renounceOwnership() public view override onlyOwner {
        revert KernelAccountCreatorCannotRenounce();
    }

    /// @notice The address of the wallet for `salt` on every chain.
    /// @param salt The wallet's salt.
    function walletAddress(bytes32 salt) external view returns (address) {
        return factory.getAddress(salt);
    }

    /// @notice New wallets start on `newImplementation` from now on. Only the cold key.
    /// @param newImplementation A UUPS implementation naming this OwnerAccount as its custodian.
    function setImplementation(address newImplementation) external onlyOwner {
        _setImplementation(newImplementation);
    }

    /// @notice Makes the OwnerAccount call `data` with this contract as its admin (addSigner, removeSigner,
    ///         upgradeWallets, transferWalletOwnership, setDelegateCode, transferOwnership, acceptOwnership). Only the
    ///         cold key. A revert bubbles up unchanged.
    /// @param data The call to the OwnerAccount.
    function forward(bytes calldata data) external onlyOwner returns (bytes memory result) {
        bool success;
        (success, result) = address(ownerAccount).call(data);
        if (!success) {
            if (result.length == 0) revert KernelAccountCreatorForwardFailed();
            assembly ("memory-safe") {
                revert(add(result, 0x20), mload(result))
            }
        }
    }

    /// @notice Stakes at the EntryPoint (ERC-7562: bundlers accept a factory that reads state only when it is staked).
    /// @param unstakeDelaySec The unstake delay, at least the chain's bundlers' minimum.
    function addStake(uint32 unstakeDelaySec) external payable onlyOwner {
        entryPoint.addStake{value: msg.value}(unstakeDelaySec);
    }

    /// @notice Starts the unstake delay; the stake can be withdrawn once it has passed.
    function unlockStake() external onlyOwner {
        entryPoint.unlockStake();
    }

    /// @notice Withdraws the unlocked stake to `withdrawAddress`.
    /// @param withdrawAddress Where the stake goes.
    function withdrawStake(address payable withdrawAddress) external onlyOwner {
        entryPoint.withdrawStake(withdrawAddress);
    }

    function _setImplementation(address newImplementation) private {
        if (newImplementation.code.length == 0) revert KernelAccountCreatorInvalidImplementation(newImplementation);
        try IERC1822Proxiable(newImplementation).proxiableUUID() returns (bytes32 slot) {
            if (slot != ERC1967Utils.IMPLEMENTATION_SLOT) {
                revert KernelAccountCreatorInvalidImplementation(newImplementation);
            }
        } catch {
            revert KernelAccountCreatorInvalidImplementation(newImplementation);
        }
        if (OwnedAccount(payable(newImplementation)).custodian() != address(ownerAccount)) {
            revert KernelAccountCreatorInvalidImplementation(newImplementation);
        }
        implementation = newImplementation;
        emit ImplementationSet(newImplementation);
    }
}
