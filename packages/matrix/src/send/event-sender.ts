import { createHash, randomBytes } from "node:crypto";
import { type Logger, retryWithBackoff } from "@switchboard/core/adapter";
import { MatrixSendError } from "../errors.ts";
import { describeRequestFailure } from "../sdk/request-failure.ts";
import { isRetryableSend, MATRIX_SEND_RETRY } from "./retry-policy.ts";

/** The SDK client's `doRequest`, which adds the access token. */
export type MatrixRequest = (method: "PUT", path: string, query: null, body: unknown) => Promise<unknown>;

export interface EventSenderOptions {
  readonly request: MatrixRequest;
  readonly logger: Logger;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly newTransactionId?: () => string;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Unique across restarts and processes sharing one account. */
function randomTransactionId(): string {
  return `sb${Date.now().toString(36)}.${randomBytes(8).toString("hex")}`;
}

/**
 * Sends room events through `PUT /rooms/{room}/send/{type}/{txnId}`, retrying rate limits and server
 * errors with the SAME transaction id: the homeserver answers a repeated transaction with the event
 * it already made, so a retry after a lost response never posts twice. (The SDK's own sendEvent
 * picks a new id per call, which is why we send through doRequest.)
 */
export class EventSender {
  readonly #options: EventSenderOptions;

  constructor(options: EventSenderOptions) {
    this.#options = options;
  }

  /**
   * With `idempotencyKey`, the transaction id is derived from it, so a send repeated after a crash
   * (same access token) returns the event the homeserver already made.
   */
  async send(roomId: string, type: string, content: object, idempotencyKey?: string): Promise<string> {
    const { request, logger, sleep = wait, newTransactionId = randomTransactionId } = this.#options;
    const transactionId =
      idempotencyKey === undefined
        ? newTransactionId()
        : `sb.${createHash("sha256").update(idempotencyKey).digest("base64url").slice(0, 32)}`;
    const path = `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/${encodeURIComponent(type)}/${encodeURIComponent(transactionId)}`;
    let attempts = 0;
    try {
      return await retryWithBackoff(
        async (attempt) => {
          attempts = attempt;
          const response = await request("PUT", path, null, content);
          const eventId = (response as { event_id?: unknown } | null)?.event_id;
          if (typeof eventId !== "string") {
            throw new MatrixSendError(
              roomId,
              `the homeserver accepted the event in ${roomId} but returned no event_id`,
            );
          }
          return eventId;
        },
        {
          policy: MATRIX_SEND_RETRY,
          retryable: (error) =>
            !(error instanceof MatrixSendError) && isRetryableSend(describeRequestFailure(error)),
          retryAfterMs: (error) => describeRequestFailure(error).retryAfterMs,
          onRetry: (attempt, delayMs, error) =>
            logger.warn("matrix send failed; retrying with the same transaction", {
              roomId,
              transactionId,
              attempt,
              delayMs,
              failure: describeRequestFailure(error).message,
            }),
          sleep: (ms) => sleep(ms),
        },
      );
    } catch (error) {
      if (error instanceof MatrixSendError) throw error;
      throw new MatrixSendError(
        roomId,
        `could not post to ${roomId} after ${attempts} attempt(s): ${describeRequestFailure(error).message}`,
        { cause: error },
      );
    }
  }
}
