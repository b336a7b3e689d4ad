import type { InboundMessage, InboundSink, Logger } from "@switchboard/core/adapter";
import { LRUCache } from "lru-cache";
import { parseMessageId } from "../conversations.ts";
import { EventNotAccepted } from "../intake/not-accepted.ts";
import { type EventKind, editedTsOf, mapMessageEvent, type ReceiveSettings } from "./message-event.ts";

export interface MessageReceiverOptions {
  readonly settings: ReceiveSettings;
  /** The workspace the app is installed in, for events that do not name it. */
  readonly teamId: string;
  readonly sink: InboundSink;
  readonly logger: Logger;
  /** Sees every person-written message handed on (the working indicator reacts to it). */
  readonly onPersonMessage: (message: InboundMessage, channel: string, ts: string) => void;
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The event types whose messages the engine hears. */
export const MESSAGE_EVENT_KINDS: ReadonlySet<string> = new Set<EventKind>(["app_mention", "message"]);

/**
 * `message` and `app_mention` events → the engine, however they arrived (HTTP or Socket Mode).
 * Resolves once the engine accepted the message (or it was a copy); a refusal by the engine
 * (stopping, store down) rejects with `EventNotAccepted`, and Slack delivers the event again.
 */
export class MessageReceiver {
  readonly #options: MessageReceiverOptions;
  /**
   * Slack delivers a message more than once: retries share an event_id, and a mention comes both
   * as `message` and as `app_mention` (same `channel:ts`). Core's durable dedupe is what makes
   * answers exactly-once; this memory only spares the engine the copies this process already
   * handed on. Forgotten again when the hand-over fails, so a retry still gets through.
   */
  readonly #handedOn = new LRUCache<string, true>({ max: 10_000 });

  constructor(options: MessageReceiverOptions) {
    this.#options = options;
  }

  async receive(
    kind: EventKind,
    event: unknown,
    body: Record<string, unknown>,
    retryNum?: number,
  ): Promise<void> {
    const { settings, logger } = this.#options;
    const handedOn = this.#handedOn;
    const eventId = stringField(body, "event_id");
    if (eventId && handedOn.has(`event:${eventId}`)) {
      logger.debug("dropping a redelivered Slack event", { eventId, retryNum });
      return;
    }
    const message = mapMessageEvent(
      kind,
      event,
      stringField(body, "team_id") ?? this.#options.teamId,
      settings,
    );
    if (!message) return;
    // An `app_mention` for an edit is not a copy of the original: the edit may be what first
    // addresses the bot. Core's durable dedupe (on the message id) still answers a message once.
    const edited = editedTsOf(event);
    const copyMark = `message:${message.id}${edited ? `@${edited}` : ""}`;
    if (!message.isEdit && handedOn.has(copyMark)) {
      logger.debug("dropping a second copy of a Slack message", { id: message.id, kind, eventId });
      return;
    }
    const where = parseMessageId(message.id);
    if (where && !message.author.isBot && !message.isEdit)
      this.#options.onPersonMessage(message, where.channel, where.ts);
    const marks = [...(eventId ? [`event:${eventId}`] : []), ...(message.isEdit ? [] : [copyMark])];
    for (const mark of marks) handedOn.set(mark, true);
    try {
      await this.#options.sink(message);
    } catch (error) {
      for (const mark of marks) handedOn.delete(mark);
      throw new EventNotAccepted(error);
    }
  }

  /**
   * An Events API body whose event the engine hears, handed on directly (the HTTP intake's fast
   * path, which needs none of Bolt's routing); undefined for every other body, which goes to Bolt.
   */
  receiveBody(body: Record<string, unknown>, retryNum: number | undefined): Promise<void> | undefined {
    if (body.type !== "event_callback") return undefined;
    const event = body.event;
    if (typeof event !== "object" || event === null) return undefined;
    const kind = (event as Record<string, unknown>).type;
    if (typeof kind !== "string" || !MESSAGE_EVENT_KINDS.has(kind)) return undefined;
    return this.receive(kind as EventKind, event, body, retryNum);
  }
}
