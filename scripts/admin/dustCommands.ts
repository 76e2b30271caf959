import { formatEther } from "ethers";
import { DustOrderStateError, type DustRepository } from "../../gateway/dust/dustRepository";
import { NotFoundError } from "../../gateway/storage/errors";
import { type DustCommand, DustUsageError, tokenUnits } from "./dustArgs";

/** Where a dust command writes its result. */
interface Output {
  out(text: string): void;
}

/** Runs one dust command: token lists, price sources and orders of the dust interface. */
export async function runDustCommand(
  command: DustCommand,
  dust: DustRepository,
  output: Output,
  clock: () => Date,
  formatTable: (header: readonly string[], rows: ReadonlyArray<readonly string[]>) => string,
): Promise<void> {
  switch (command.kind) {
    case "tokens add":
      await dust.putToken({
        chain: command.chain,
        address: command.token,
        symbol: command.symbol,
        decimals: command.decimals,
        listing: command.listing,
      });
      return output.out(
        `Listed ${command.symbol} (${command.token}) on ${command.chain}: ${command.listing}, ${command.decimals} decimals`,
      );
    case "tokens list": {
      const tokens = await dust.tokens(command.chain);
      if (tokens.length === 0) return output.out(`No tokens listed on ${command.chain}.`);
      return output.out(
        formatTable(
          ["SYMBOL", "TOKEN", "DECIMALS", "LISTING"],
          tokens.map((t) => [t.symbol, t.address, String(t.decimals), t.listing]),
        ),
      );
    }
    case "tokens remove":
      if (!(await dust.removeToken(command.chain, command.token))) throw new NotFoundError("dust token", command.token);
      return output.out(`Removed ${command.token} from ${command.chain}'s list`);
    case "price set":
      await dust.putPrice({ chain: command.chain, asset: command.asset, ...command.source });
      return output.out(
        `Price of ${command.asset} on ${command.chain}: ${"usd" in command.source ? `${command.source.usd} USD` : `feed ${command.source.feed}`}`,
      );
    case "price list": {
      const prices = await dust.prices(command.chain);
      if (prices.length === 0) return output.out(`No prices on ${command.chain}.`);
      return output.out(
        formatTable(
          ["ASSET", "SOURCE", "UPDATED"],
          prices.map((p) => [p.asset, "usd" in p ? `${p.usd} USD` : `feed ${p.feed}`, p.updatedAt]),
        ),
      );
    }
    case "orders create": {
      const token = (await dust.tokens(command.chain)).find((t) => t.address === command.token);
      if (!token)
        throw new DustUsageError(`${command.token} is not listed on ${command.chain} (dust tokens add first)`);
      const order = await dust.createOrder({
        chain: command.chain,
        maker: command.maker,
        token: command.token,
        amount: tokenUnits(command.amount, token.decimals),
        tx: command.tx,
        createdAt: command.time ?? clock().toISOString(),
      });
      return output.out(`Created open order ${order.id}: ${command.amount} ${token.symbol} of ${order.maker}`);
    }
    case "orders settle": {
      const order = await changeOrder(dust, command.id, () =>
        dust.settleOrder(command.id, {
          tx: command.tx,
          blockNumber: command.blockNumber,
          ethAmount: command.ethAmount,
          usdValue: Number(formatEther(command.ethAmount)) * command.ethPrice,
          ethPrice: command.ethPrice,
          at: command.time ?? clock().toISOString(),
        }),
      );
      return output.out(`Order ${order.id} swept for ${formatEther(command.ethAmount)} ETH in ${command.tx}`);
    }
    case "orders cancel": {
      const order = await changeOrder(dust, command.id, () => dust.cancelOrder(command.id));
      return output.out(`Order ${order.id} cancelled`);
    }
    case "orders list": {
      const orders = await dust.orders({
        ...(command.openOnly ? { status: "open" as const } : {}),
        limit: 1000,
        offset: 0,
      });
      if (orders.length === 0) return output.out("No orders.");
      return output.out(
        formatTable(
          ["ID", "CHAIN", "MAKER", "TOKEN", "AMOUNT (RAW)", "STATUS", "CREATED"],
          orders.map((o) => [o.id, o.chain, o.maker, o.token, o.amount.toString(), o.status, o.createdAt]),
        ),
      );
    }
  }
}

/** Runs a change of an open order: unknown ids are not found, orders no longer open a usage error. */
async function changeOrder<T>(dust: DustRepository, id: string, change: () => Promise<T>): Promise<T> {
  if (!(await dust.findOrder(id))) throw new NotFoundError("dust order", id);
  try {
    return await change();
  } catch (error) {
    if (error instanceof DustOrderStateError) throw new DustUsageError(`order ${id} is not open`);
    throw error;
  }
}
