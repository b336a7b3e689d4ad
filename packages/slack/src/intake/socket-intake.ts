import type { App, SocketModeReceiver } from "@slack/bolt";
import type { Logger } from "@switchboard/core/adapter";
import { isNotAccepted } from "./not-accepted.ts";
import type { RejectionLog } from "./rejection-log.ts";
import { isSlackPayload } from "./request-shape.ts";

/** What the Socket Mode client emits for each envelope. */
interface SocketEnvelope {
  readonly ack: (response?: Record<string, unknown>) => Promise<void>;
  readonly type: string;
  readonly body: unknown;
  readonly retry_num?: number;
  readonly retry_reason?: string;
}

/**
 * Socket Mode with the acknowledgement *after* the engine took the event. Bolt's own receiver acks
 * an event before any listener runs, so an event the engine refused (stopping) was gone for good;
 * here the ack is sent only once processing succeeded, and withheld when the engine refused, so
 * Slack sends the envelope again. Payloads that are not Slack's shapes are acked (a redelivery
 * would not fix them) and counted.
 */
export function ackSocketEventsAfterIntake(
  receiver: SocketModeReceiver,
  app: App,
  rejections: RejectionLog,
  logger: Logger,
): void {
  screenEnvelopes(receiver, rejections);
  receiver.client.removeAllListeners("slack_event");
  receiver.client.on("slack_event", async (envelope: SocketEnvelope) => {
    try {
      await deliver(envelope, app, rejections, logger);
    } catch (error) {
      rejections.note("socket envelope failure", { error });
    }
  });
}

async function deliver(
  envelope: SocketEnvelope,
  app: App,
  rejections: RejectionLog,
  logger: Logger,
): Promise<void> {
  if (!isSlackPayload(envelope.type, envelope.body)) {
    rejections.note(`${envelope.type} payload is not a Slack payload`);
    await envelope.ack();
    return;
  }
  let response: Record<string, unknown> | undefined;
  let acknowledged = false;
  try {
    await app.processEvent({
      body: envelope.body,
      ack: async (answer?: unknown) => {
        acknowledged = true;
        if (typeof answer === "string") response = { text: answer };
        else if (typeof answer === "object" && answer !== null) response = answer as Record<string, unknown>;
      },
      ...(envelope.retry_num === undefined ? {} : { retryNum: envelope.retry_num }),
      ...(envelope.retry_reason === undefined ? {} : { retryReason: envelope.retry_reason }),
      customProperties: {},
    });
  } catch (error) {
    if (isNotAccepted(error)) {
      logger.warn("a Slack event was not accepted; leaving it unacknowledged so Slack sends it again", {
        error,
        retryNum: envelope.retry_num,
      });
      return;
    }
    rejections.note("event processing failed", { error });
  }
  if (acknowledged || envelope.type === "events_api") await envelope.ack(response);
}

/** Envelope types that carry a payload for the app (the rest — hello, disconnect — are the client's). */
const PAYLOAD_TYPES = new Set(["events_api", "slash_commands", "interactive"]);

function isWellFormedEnvelope(data: unknown): boolean {
  if (typeof data !== "string") return true;
  let envelope: unknown;
  try {
    envelope = JSON.parse(data);
  } catch {
    // The client logs and ignores what is not JSON.
    return true;
  }
  if (typeof envelope !== "object" || envelope === null) return false;
  const { type, payload } = envelope as { type?: unknown; payload?: unknown };
  if (typeof type !== "string" || !PAYLOAD_TYPES.has(type)) return true;
  return isSlackPayload(type, payload);
}

/**
 * The Socket Mode client reads `payload.event.type` of every `events_api` envelope unguarded,
 * in a promise nobody awaits; a malformed envelope is screened out (and counted) before it.
 */
function screenEnvelopes(receiver: SocketModeReceiver, rejections: RejectionLog): void {
  const client = receiver.client;
  const readers = client.listeners("ws_message");
  client.removeAllListeners("ws_message");
  client.on("ws_message", (data: unknown, isBinary: boolean) => {
    if (!isWellFormedEnvelope(data)) {
      rejections.note("malformed Socket Mode envelope");
      return;
    }
    for (const read of readers) {
      Promise.resolve(read.call(client, data, isBinary)).catch((error: unknown) =>
        rejections.note("Socket Mode envelope failure", { error }),
      );
    }
  });
}
