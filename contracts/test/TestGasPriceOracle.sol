// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title TestGasPriceOracle
/// @notice Test-only stand-in for an OP-stack chain's GasPriceOracle predeploy (0x420000000000000000000000000000000000000F)
///         after Ecotone, placed at that address with hardhat_setCode: a local chain then charges nothing more, but
///         answers getL1Fee as an OP-stack chain does, from the L1 fee parameters in its own storage.
/// @dev The Ecotone L1 cost function of the OP-stack specs (specs/protocol/exec-engine.md, "Ecotone L1-Cost fee
///      changes"): l1Fee = calldataGas * (16 * baseFeeScalar * l1BaseFee + blobBaseFeeScalar * blobBaseFee) / 16e6,
///      where calldataGas counts 4 per zero byte and 16 per other byte of the unsigned transaction, plus 68 bytes
///      (at 16) for its signature. Before Fjord the predeploy has no getL1FeeUpperBound; neither has this.
contract TestGasPriceOracle {
    uint256 public constant DECIMALS = 6;

    uint256 public l1BaseFee;
    uint256 public blobBaseFee;
    uint32 public baseFeeScalar;
    uint32 public blobBaseFeeScalar;

    /// @notice Sets the L1 fee parameters (on a real chain, the L1 attributes transaction of each block sets them).
    function setL1FeeParameters(
        uint256 l1BaseFee_,
        uint256 blobBaseFee_,
        uint32 baseFeeScalar_,
        uint32 blobBaseFeeScalar_
    ) external {
        l1BaseFee = l1BaseFee_;
        blobBaseFee = blobBaseFee_;
        baseFeeScalar = baseFeeScalar_;
        blobBaseFeeScalar = blobBaseFeeScalar_;
    }

    function isEcotone() external pure returns (bool) {
        return true;
    }

    /// @notice The L1 data fee (wei) of an unsigned, RLP-encoded transaction `data`.
    function getL1Fee(bytes calldata data) external view returns (uint256) {
        uint256 scaledBaseFee = uint256(baseFeeScalar) * 16 * l1BaseFee;
        uint256 scaledBlobBaseFee = uint256(blobBaseFeeScalar) * blobBaseFee;
        return (getL1GasUsed(data) * (scaledBaseFee + scaledBlobBaseFee)) / (16 * 10 ** DECIMALS);
    }

    /// @notice The call-data gas of `data` with the 68 bytes of the signature it will get.
    function getL1GasUsed(bytes calldata data) public pure returns (uint256) {
        uint256 total = 0;
        for (uint256 i = 0; i < data.length; i++) {
            total += data[i] == 0 ? 4 : 16;
        }
        return total + 68 * 16;
    }
}
