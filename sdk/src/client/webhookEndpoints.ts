import type { components } from "../generated/openapi.js";
import type { Exchange } from "./exchange.js";

/** The app's webhook endpoints: where its requests' events are POSTed, signed per Standard Webhooks. */
export function webhookEndpointMethods(exchange: Exchange) {
  return {
    /** Registers an endpoint; the answer holds its signing secret, shown this once. */
    create: (body: components["schemas"]["CreateWebhookRequest"]) =>
      exchange.asApp((Authorization) => exchange.api.POST("/v1/webhooks", { headers: { Authorization }, body })),

    /** The app's endpoints, oldest first (never their secrets). */
    list: async () =>
      (await exchange.asApp((Authorization) => exchange.api.GET("/v1/webhooks", { headers: { Authorization } })))
        .endpoints,

    /** Removes an endpoint. */
    delete: async (id: string): Promise<void> => {
      await exchange.asApp(async (Authorization) => {
        const answer = await exchange.api.DELETE("/v1/webhooks/{id}", {
          headers: { Authorization },
          params: { path: { id } },
          parseAs: "text",
        });
        return { ...answer, data: answer.data ?? "" };
      });
    },
  };
}
