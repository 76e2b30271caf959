// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

import {IAggregatorV3} from "./IAggregatorV3.sol";

/// @title TestPriceFeed
/// @notice Test-only Chainlink-style price feed whose answer anyone may set; every new answer opens a round.
contract TestPriceFeed is IAggregatorV3 {
    struct Round {
        int256 answer;
        uint64 updatedAt;
    }

    uint8 private immutable _decimals;
    uint80 private _latestRound;
    mapping(uint80 roundId => Round) private _rounds;

    /// @notice As Chainlink's AggregatorInterface: round `roundId` answered `current` at `updatedAt`.
    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    /// @notice Round `roundId` was never opened (rounds start at 1).
    error TestPriceFeedNoRound(uint80 roundId);

    /// @param decimals_ Decimals of every answer.
    /// @param initialAnswer The answer of round 1.
    constructor(uint8 decimals_, int256 initialAnswer) {
        _decimals = decimals_;
        _setAnswer(initialAnswer);
    }

    /// @notice Opens the next round with `answer`, updated now.
    /// @param answer The new price, scaled by `10**decimals()`.
    function setAnswer(int256 answer) external {
        _setAnswer(answer);
    }

    /// @inheritdoc IAggregatorV3
    function decimals() external view returns (uint8) {
        return _decimals;
    }

    /// @inheritdoc IAggregatorV3
    function description() external pure returns (string memory) {
        return "TestPriceFeed";
    }

    /// @inheritdoc IAggregatorV3
    function version() external pure returns (uint256) {
        return 1;
    }

    /// @inheritdoc IAggregatorV3
    function getRoundData(
        uint80 roundId_
    )
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        if (roundId_ == 0 || roundId_ > _latestRound) revert TestPriceFeedNoRound(roundId_);
        return _round(roundId_);
    }

    /// @inheritdoc IAggregatorV3
    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return _round(_latestRound);
    }

    function _setAnswer(int256 answer) private {
        uint80 roundId = ++_latestRound;
        _rounds[roundId] = Round({answer: answer, updatedAt: uint64(block.timestamp)});
        emit AnswerUpdated(answer, roundId, block.timestamp);
    }

    /// @dev A round is answered the moment it opens, so startedAt = updatedAt and answeredInRound = roundId.
    function _round(uint80 roundId) private view returns (uint80, int256, uint256, uint256, uint80) {
        Round storage round = _rounds[roundId];
        return (roundId, round.answer, round.updatedAt, round.updatedAt, roundId);
    }
}
