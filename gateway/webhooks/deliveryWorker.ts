import { SecretsKeyError } from "../crypto/secretsKeyring";
import { deliverWebhook, type DeliveryDeps } from "./deliverWebhook";

/**
 * How long a claim lasts beyond twice the attempt's timeout: room to record the outcome (a busy database, a stalled
 * event loop) before another process may retake it and make the same attempt again.
 */
const CLAIM_MARGIN_MS = 5_000;

/** How long a claim of one attempt lasts under these settings (the loop's and `webhooks test`'s alike). */
export const claimMsOf = (settings: { readonly timeoutMs: number }): number => 2 * settings.timeoutMs + CLAIM_MARGIN_MS;
/** How often finished deliveries past WEBHOOK_RETENTION_DAYS are deleted. */
const PRUNE_EVERY_MS = 3_600_000;

/** The delivery loop of one process. */
export interface WebhookDelivery {
  /**
   * Looks for due deliveries now instead of at the next poll: called whenever an event recorded in this process is
   * committed (the repository's onEventRecorded), so it goes out at once.
   */
  wake(): void;
  /** Stops claiming and waits for the attempts in flight. */
  stop(): Promise<void>;
}

/**
 * Starts delivering: as soon as an event recorded in this process is committed, and every `pollMs` for the events of
 * other processes and the retries that fall due, claims as many due deliveries as it has room for, up to
 * `concurrency` attempts at once, and makes each. Claims keep processes and instances apart, and a request's later
 * event is claimed only after its earlier one to the same endpoint is settled, so each endpoint receives a request's
 * events in order. What a crash leaves claimed is claimed again once its claim ends: delivery is at least once.
 */
export function startWebhookDelivery(deps: DeliveryDeps): WebhookDelivery {
  const { settings, repository, logger } = deps;
  const inFlight = new Set<Promise<unknown>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  /** Woken while a look was running: look again as soon as it ends. */
  let again = false;
  /** Whether this process has said it has no SECRETS_KEY to sign deliveries with. */
  let toldNoKey = false;
  let prunedAt = 0;

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), ms);
  };
  const tick = (): Promise<void> => {
    if (running) again = true;
    running ??= claimAndSend().finally(() => (running = undefined));
    return running;
  };
  async function claimAndSend(): Promise<void> {
    if (stopped) return;
    await pruneNowAndThen();
    const room = settings.concurrency - inFlight.size;
    let full = false;
    try {
      if (room > 0) {
        const claims = await repository.claimDue({
          limit: room,
          claimMs: claimMsOf(settings),
          perEndpoint: settings.endpointConcurrency,
          perApp: settings.appConcurrency,
        });
        full = claims.length === room;
        for (const claim of claims) {
          const attempt = deliverWebhook(deps, claim)
            .catch((error: unknown) => logger.error({ err: error, eventId: claim.eventId }, "webhook attempt failed"))
            .finally(() => {
              inFlight.delete(attempt);
              // Room again, and maybe a request's next event now due: look at once.
              schedule(0);
            });
          inFlight.add(attempt);
        }
      }
    } catch (error) {
      // Without SECRETS_KEY this process signs nothing and leaves the deliveries to one that can: said once, not at
      // every poll.
      if (!(error instanceof SecretsKeyError)) logger.error({ err: error }, "claiming webhook deliveries failed");
      else if (!toldNoKey) logger.warn("SECRETS_KEY is not set: webhook deliveries are left to instances that have it");
      toldNoKey ||= error instanceof SecretsKeyError;
    }
    const soon = full || again;
    again = false;
    schedule(soon ? 0 : settings.pollMs);
  }

  /** Deletes what is past its retention, at most once an hour (every instance may: the deletes are idempotent). */
  async function pruneNowAndThen(): Promise<void> {
    const now = deps.clock();
    if (now.getTime() - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = now.getTime();
    try {
      const pruned = await repository.prune(new Date(now.getTime() - settings.retentionDays * 86_400_000));
      if (pruned > 0) logger.info({ pruned }, "finished webhook deliveries past their retention deleted");
    } catch (error) {
      logger.error({ err: error }, "deleting finished webhook deliveries failed");
    }
  }

  const wake = () => schedule(0);
  const stopHearing = repository.onEventRecorded(wake);
  schedule(0);
  return {
    wake,
    stop: async () => {
      stopped = true;
      stopHearing();
      clearTimeout(timer);
      await running;
      await Promise.allSettled([...inFlight]);
    },
  };
}
