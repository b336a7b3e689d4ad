import type { App, SocketModeReceiver } from "@slack/bolt";
import type { Logger } from "@switchboard/core/adapter";
import { replaceSocketEventListener, type SocketEnvelope, screenSocketMessages } from "../library-patches.ts";
import { isNotAccepted } from "./not-accepted.ts";
import type { RejectionLog } from "./rejection-log.ts";
import { isSlackPayload } from "./request-shape.ts";

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
  screenSocketMessages(
    receiver,
    (data) => {
      if (isWellFormedEnvelope(data)) return true;
      rejections.note("malformed Socket Mode envelope");
      return false;
    },
    (error) => rejections.note("Socket Mode envelope failure", { error }),
  );
  replaceSocketEventListener(receiver, async (envelope) => {
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

/**
 * The Socket Mode client reads `payload.event.type` of every `events_api` envelope unguarded,
 * in a promise nobody awaits; a malformed envelope is screened out (and counted) before it.
 */
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
