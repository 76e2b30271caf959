import { expect } from "chai";
import { WebhookSettings } from "../../../gateway/config/webhookSettings";
import { openDatabase } from "../../../gateway/storage/database";
import { createRepositories } from "../../../gateway/storage/repositories";
import { startWebhookDelivery } from "../../../gateway/webhooks/deliveryWorker";
import { capturingLogger } from "../../helpers/capturingLogger";

describe("webhook delivery in a process without SECRETS_KEY", () => {
  it("leaves the deliveries to others and says so once, not an error at every poll", async () => {
    const database = await openDatabase(":memory:");
    const lines: string[] = [];
    const delivery = startWebhookDelivery({
      // No keyring: this process can sign no delivery, so it claims none.
      repository: createRepositories(database.db, () => new Date()).webhooks,
      settings: WebhookSettings.parse({ pollMs: 10 }),
      clock: () => new Date(),
      logger: capturingLogger(lines),
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await delivery.stop();
    await database.close();
    const said = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(
      said.filter((line) => line.level >= 50),
      "no error lines",
    ).to.deep.equal([]);
    expect(said.filter((line) => /SECRETS_KEY is not set/.test(line.msg))).to.have.length(1);
  });
});
