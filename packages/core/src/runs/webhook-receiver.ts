import { z } from "zod";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { AtomicStore } from "../store/types.ts";
import type { RequestTracker } from "./request-tracker.ts";
import { CONTINUATION, type RunScheduler } from "./tracked-team.ts";
import { verifyWebhookSignature } from "./webhook-signature.ts";

export const webhookEventSchema = z.strictObject({
  event: z.enum(["run_triggered", "run_completed", "run_failed"]),
  /** Unique per event: a redelivery with the same id is processed once. */
  eventId: z.string().min(1).max(200),
  requestId: z.string().min(1),
  runId: z.string().min(1).max(200),
  parentRunId: z.string().optional(),
  /** run_completed: the answer to post in the request's thread. */
  message: z.string().optional(),
  /** run_failed: what went wrong, shown to the user. */
  error: z.string().max(500).optional(),
});

export type WebhookEvent = z.output<typeof webhookEventSchema>;

export interface WebhookResponse {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** Remembered long past the 5-minute signature window, so no valid replay gets through. */
const EVENT_DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * `POST /webhooks/runs`: an external system reports runs it started for a request. Verified
 * (HMAC-SHA256 over timestamp and body), validated, deduplicated, then queued in the request's
 * conversation so its answer is ordered with the conversation's turns and survives a restart.
 */
export interface WebhookReceiverOptions {
  readonly secret: string;
  readonly tracker: RequestTracker;
  readonly atomic: AtomicStore;
  readonly scheduler: () => RunScheduler;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class WebhookReceiver {
  readonly #options: WebhookReceiverOptions;

  constructor(options: WebhookReceiverOptions) {
    this.#options = options;
  }

  async receive(
    headers: { timestamp?: string; signature?: string },
    rawBody: string,
  ): Promise<WebhookResponse> {
    const { tracker, atomic, clock, logger } = this.#options;
    const verdict = verifyWebhookSignature({
      secret: this.#options.secret,
      timestamp: headers.timestamp,
      signature: headers.signature,
      body: rawBody,
      nowSeconds: Math.floor(clock.now() / 1000),
    });
    if (verdict !== "valid") {
      logger.warn("webhook rejected", { verdict });
      return { status: 401, body: { error: `signature ${verdict}` } };
    }
    let event: WebhookEvent;
    try {
      event = webhookEventSchema.parse(JSON.parse(rawBody));
    } catch (error) {
      return { status: 400, body: { error: error instanceof Error ? error.message : "invalid body" } };
    }
    const request = await tracker.get(event.requestId);
    if (!request) return { status: 404, body: { error: `unknown request ${event.requestId}` } };
    if (!(await atomic.setIfAbsent(`webhook-event:${event.eventId}`, "1", EVENT_DEDUPE_TTL_MS))) {
      return { status: 200, body: { duplicate: true } };
    }
    if (event.event === "run_triggered") {
      await tracker.startRun(request.id, {
        triggeredBy: "webhook",
        runId: event.runId,
        ...(event.parentRunId ? { parentRunId: event.parentRunId } : {}),
      });
      await tracker.setStatus(request.id, "awaiting_external");
    } else {
      await this.#options.scheduler().enqueueContinuation(request.conversationKey, {
        requestId: request.id,
        type: event.event === "run_completed" ? CONTINUATION.externalCompleted : CONTINUATION.externalFailed,
        data: {
          runId: event.runId,
          ...(event.message ? { message: event.message } : {}),
          ...(event.error ? { error: event.error } : {}),
        },
      });
    }
    logger.info("webhook accepted", { event: event.event, requestId: request.id, runId: event.runId });
    return { status: 202, body: { accepted: true } };
  }
}
