import { z } from "zod";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { CONTINUATION, type RunScheduler } from "./continuations.ts";
import { isOpen, type RequestRecord } from "./request-record.ts";
import type { RequestTracker } from "./request-tracker.ts";
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

/**
 * `POST /webhooks/runs`: an external system reports runs it started for a request. Verified
 * (HMAC-SHA256 over timestamp and body), validated, deduplicated, then queued in the request's
 * conversation so its answer is ordered with the conversation's turns and survives a restart.
 */
export interface WebhookReceiverOptions {
  readonly secret: string;
  readonly tracker: RequestTracker;
  /** Longest `message` accepted (characters). */
  readonly maxMessageChars: number;
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
    const { tracker, clock, logger } = this.#options;
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
    if (event.message !== undefined && event.message.length > this.#options.maxMessageChars) {
      return {
        status: 413,
        body: {
          error: `message has ${event.message.length} characters; at most ${this.#options.maxMessageChars} are accepted`,
        },
      };
    }
    const request = await tracker.get(event.requestId);
    if (!request) return { status: 404, body: { error: `unknown request ${event.requestId}` } };
    const run = request.runs.find((candidate) => candidate.runId === event.runId);
    if (run?.closedByEvent === event.eventId) return { status: 200, body: { duplicate: true } };
    if (run?.openedByEvent === event.eventId) {
      // A replay of the trigger: finish what a crash may have cut short after the run was recorded.
      if (run.status === "running" && request.status !== "awaiting_external")
        await tracker.setStatus(request.id, "awaiting_external");
      return { status: 200, body: { duplicate: true } };
    }
    const refusal = closedRunReason(request, event);
    if (refusal) {
      logger.info("webhook refused: the run is not open", {
        requestId: request.id,
        runId: event.runId,
        refusal,
      });
      return { status: 409, body: { error: refusal } };
    }
    if (event.event === "run_triggered") {
      // The run records the event that opened it: a replay is recognised by the record itself,
      // so there is no separate "seen" mark that a crash could leave without the run.
      await tracker.startRun(request.id, {
        triggeredBy: "webhook",
        runId: event.runId,
        openedByEvent: event.eventId,
        ...(event.parentRunId ? { parentRunId: event.parentRunId } : {}),
      });
      await tracker.setStatus(request.id, "awaiting_external");
    } else {
      // Queued once per event id, in the same atomic step that marks it seen.
      const queued = await this.#options.scheduler().enqueueContinuation(request.conversationKey, {
        id: `webhook:${event.eventId}`,
        requestId: request.id,
        type: event.event === "run_completed" ? CONTINUATION.externalCompleted : CONTINUATION.externalFailed,
        data: {
          eventId: event.eventId,
          runId: event.runId,
          ...(event.message ? { message: event.message } : {}),
          ...(event.error ? { error: event.error } : {}),
        },
      });
      if (!queued) return { status: 200, body: { duplicate: true } };
    }
    logger.info("webhook accepted", { event: event.event, requestId: request.id, runId: event.runId });
    return { status: 202, body: { accepted: true } };
  }
}

/**
 * Why an event cannot change this request any more, or undefined when it may. A run's result is
 * taken once, while the run is open; a result for a run never reported as triggered only while the
 * request is open; a new run may be triggered on a closed request (it opens it again).
 */
function closedRunReason(request: RequestRecord, event: WebhookEvent): string | undefined {
  const run = request.runs.find((candidate) => candidate.runId === event.runId);
  if (event.event === "run_triggered")
    return run ? `run ${event.runId} was already reported as triggered` : undefined;
  if (run)
    return run.status === "running"
      ? undefined
      : `run ${event.runId} is already ${run.status}; nothing was posted`;
  return isOpen(request)
    ? undefined
    : `request ${request.id} is ${request.status.replace("_", " ")} and run ${event.runId} was never reported as triggered; nothing was posted`;
}
