import { z } from "zod";

/** POST /v1/auth form (RFC 6749 §4.4 client credentials; the client may authenticate with HTTP Basic instead). */
export const TokenRequest = z
  .object({
    grant_type: z.string().optional().meta({ description: "client_credentials (optional)" }),
    client_id: z.string().max(200).optional(),
    client_secret: z.string().max(500).optional(),
  })
  .meta({ id: "TokenRequest" });

/** POST /v1/auth answer (RFC 6749 §5.1). */
export const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().meta({ example: 3600 }),
  })
  .meta({ id: "TokenResponse" });
