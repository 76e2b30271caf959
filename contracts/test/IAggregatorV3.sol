// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title IAggregatorV3
/// @notice The read interface of a Chainlink price feed (AggregatorV3Interface), as price readers call it.
interface IAggregatorV3 {
    /// @notice Decimals of every answer: a price is `answer / 10**decimals`.
    function decimals() external view returns (uint8);

    /// @notice What the feed prices, e.g. "ETH / USD".
    function description() external view returns (string memory);

    /// @notice Version of the aggregator behind the feed.
    function version() external view returns (uint256);

    /// @notice One past round.
    /// @param roundId_ The round to read.
    /// @return roundId The round read.
    /// @return answer The price of that round.
    /// @return startedAt When the round started (unix seconds).
    /// @return updatedAt When the answer was written (unix seconds).
    /// @return answeredInRound The round in which the answer was computed.
    function getRoundData(
        uint80 roundId_
    )
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);

    /// @notice The latest round, in the form of `getRoundData`.
    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
}
