import type { App } from "@slack/bolt";
import type { InboundMessage, InboundSink, Logger } from "@switchboard/core";
import { BoundedMap } from "../bounded-map.ts";
import { isDirectChannel, parseMessageId } from "../conversations.ts";
import { type EventKind, isServedPlace, mapMessageEvent, type ReceiveSettings } from "./message-event.ts";
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
  /** Keeps a slash command's response_url, for answering where the bot is not a member. */
  readonly onResponseUrl: (messageId: string, responseUrl: string) => void;
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Bolt → engine. Bolt has already acknowledged each event when a listener runs (HTTP response or
 * Socket Mode ack), so Slack's 3-second deadline never waits on our work.
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
    if (!message.isEdit && handedOn.has(`message:${message.id}`)) {
      logger.debug("dropping a second copy of a Slack message", { id: message.id, kind, eventId });
      return;
    }
    const where = parseMessageId(message.id);
    if (where && !message.author.isBot && !message.isEdit)
      options.onPersonMessage(message, where.channel, where.ts);
    const marks = [
      ...(eventId ? [`event:${eventId}`] : []),
      ...(message.isEdit ? [] : [`message:${message.id}`]),
    ];
    for (const mark of marks) handedOn.set(mark, true);
    try {
      await sink(message);
    } catch (error) {
      for (const mark of marks) handedOn.delete(mark);
      throw error;
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
    // An empty ack shows nothing; the answer arrives ephemerally once the engine has it.
    await ack();
    const message = mapSlashCommand(command, settings, Date.now());
    options.onResponseUrl(message.id, command.response_url);
    await sink(message);
  });

  app.error(async (error) => {
    logger.error("handling a Slack event failed", { error });
  });
}
