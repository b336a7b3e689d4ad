import type { App } from "@slack/bolt";
import type { InboundMessage, InboundSink, Logger } from "@switchboard/core";
import { BoundedMap } from "../bounded-map.ts";
import { isDirectChannel, parseMessageId } from "../conversations.ts";
import { EventNotAccepted, isNotAccepted } from "../intake/not-accepted.ts";
import {
  type EventKind,
  editedTsOf,
  isServedPlace,
  mapMessageEvent,
  type ReceiveSettings,
} from "./message-event.ts";
import { mapSlashCommand } from "./slash-command.ts";

export interface ListenerOptions {
  readonly settings: ReceiveSettings;
  /** The workspace the app is installed in, for events that do not name it. */
  readonly teamId: string;
  readonly slashCommand: string;
  readonly sink: InboundSink;
  readonly logger: Logger;
  /** Sees every person-written message handed on (the working indicator reacts to it). */
  readonly onPersonMessage: (message: InboundMessage, channel: string, ts: string) => void;
  /**
   * Keeps a slash command's response_url, for answering where the bot is not a member — in the
   * shared store too, before the engine has the command, since a worker may answer it.
   */
  readonly onResponseUrl: (messageId: string, responseUrl: string) => Promise<void>;
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Bolt → engine. The acknowledgement (HTTP response or Socket Mode ack) goes out once these
 * listeners resolved, i.e. once the engine accepted the message — the engine only queues it, so
 * Slack's 3-second deadline waits on the intake, never on a turn. A refusal by the engine
 * (stopping, store down) becomes `EventNotAccepted`, and Slack delivers the event again.
 */
export function registerListeners(app: App, options: ListenerOptions): void {
  const { settings, sink, logger } = options;
  // Slack delivers a message more than once: retries share an event_id, and a mention comes both
  // as `message` and as `app_mention` (same `channel:ts`). Core's durable dedupe is what makes
  // answers exactly-once; this memory only spares the engine the copies this process already
  // handed on. Forgotten again when the hand-over fails, so a retry still gets through.
  const handedOn = new BoundedMap<string, true>(10_000);

  const receive = async (
    kind: EventKind,
    event: unknown,
    body: Record<string, unknown>,
    retryNum?: number,
  ) => {
    const eventId = stringField(body, "event_id");
    if (eventId && handedOn.has(`event:${eventId}`)) {
      logger.debug("dropping a redelivered Slack event", { eventId, retryNum });
      return;
    }
    const message = mapMessageEvent(kind, event, stringField(body, "team_id") ?? options.teamId, settings);
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
      options.onPersonMessage(message, where.channel, where.ts);
    const marks = [...(eventId ? [`event:${eventId}`] : []), ...(message.isEdit ? [] : [copyMark])];
    for (const mark of marks) handedOn.set(mark, true);
    try {
      await sink(message);
    } catch (error) {
      for (const mark of marks) handedOn.delete(mark);
      throw new EventNotAccepted(error);
    }
  };

  app.event("app_mention", async ({ event, body, context }) =>
    receive("app_mention", event, body, context.retryNum),
  );
  app.event("message", async ({ event, body, context }) => receive("message", event, body, context.retryNum));

  app.command(options.slashCommand, async ({ command, ack }) => {
    if (!isServedPlace(command.channel_id, isDirectChannel(command.channel_id), settings)) {
      await ack({ response_type: "ephemeral", text: "Switchboard is not enabled here." });
      return;
    }
    const message = mapSlashCommand(command, settings, Date.now());
    try {
      await options.onResponseUrl(message.id, command.response_url);
      await sink(message);
    } catch (error) {
      logger.warn("a slash command was not accepted (the store or the engine refused it)", {
        error,
        id: message.id,
      });
      await ack({
        response_type: "ephemeral",
        text: "Switchboard cannot take this right now; please try again.",
      });
      return;
    }
    // An empty ack shows nothing; the answer arrives ephemerally once the engine has it.
    await ack();
  });

  app.error(async (error) => {
    // Rethrown so the receiver withholds the ack; it logs the refusal itself.
    if (isNotAccepted(error)) throw error;
    logger.error("handling a Slack event failed", { error });
  });
}
