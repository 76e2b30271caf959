import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { InvalidRequestError } from "../errors/apiError";
import type { TxListPosition } from "./txListing";

/**
 * The cursors of the request listings: opaque to the app, and good only for the listing that gave them out. A cursor
 * is its place (the last request of the page before) and an HMAC over the place and the listing's scope (the app, the
 * listing, its filters), so an app cannot forge one, edit one, or carry one into another app's listing or another
 * filter: anything else is 400 INVALID_CURSOR, whichever it is. The place alone could not reach past the app's scope
 * anyway (the query is the app's own); the MAC makes a cursor the service's word rather than the client's.
 */
export interface ListCursors {
  /** The cursor of `position` in the listing `scope` names. */
  issue(scope: readonly unknown[], position: TxListPosition): string;
  /** The place a cursor issued for `scope` names; 400 INVALID_CURSOR for any other string. */
  read(scope: readonly unknown[], cursor: string): TxListPosition;
}

// The place, as JSON in base64url, a dot, then the MAC's first 16 bytes (128 bits) in base64url.
const CURSOR = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{22})$/;
const MAC_BYTES = 16;
const Place = z.tuple([z.iso.datetime(), z.string().min(1).max(64)]);

/** Cursors keyed from `secret` (the app-token secret: every process of a deployment has it, no new setting). */
export function createListCursors(secret: string): ListCursors {
  // HKDF (RFC 5869) with its own label: the cursor key is not the token key, and tells nothing of it.
  const key = Buffer.from(hkdfSync("sha256", secret, "", "idwallet list cursor v1", 32));
  const macOf = (scope: readonly unknown[], place: string): Buffer =>
    createHmac("sha256", key).update(JSON.stringify(scope)).update("\n").update(place).digest().subarray(0, MAC_BYTES);
  return {
    issue(scope, position) {
      const place = Buffer.from(JSON.stringify([position.createdAt, position.id])).toString("base64url");
      return `${place}.${macOf(scope, place).toString("base64url")}`;
    },
    read(scope, cursor) {
      const parts = CURSOR.exec(cursor);
      // The MAC as text: another spelling of the same bytes (base64's unused low bits) is refused too.
      const given = Buffer.from(parts?.[2] ?? "");
      const expected = parts ? Buffer.from(macOf(scope, parts[1]!).toString("base64url")) : Buffer.alloc(0);
      if (!parts || given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
      const place = Place.safeParse(parseJson(Buffer.from(parts[1]!, "base64url").toString("utf8")));
      if (!place.success) throw invalidCursor();
      return { createdAt: place.data[0], id: place.data[1] };
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One answer for every cursor refused: which check failed would tell an attacker what to try next. */
const invalidCursor = () =>
  new InvalidRequestError(
    "cursor is not one this listing gave out (a nextCursor of the same listing, with the same filters)",
    [{ pointer: "/cursor", detail: "invalid" }],
    "INVALID_CURSOR",
  );
