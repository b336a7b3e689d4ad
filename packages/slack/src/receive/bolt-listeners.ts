import type { App } from "@slack/bolt";
import type { InboundSink, Logger } from "@switchboard/core/adapter";
import { isDirectChannel } from "../conversations.ts";
import { isNotAccepted } from "../intake/not-accepted.ts";
import { isServedPlace, type ReceiveSettings } from "./message-event.ts";
import type { MessageReceiver } from "./message-receiver.ts";
import { mapSlashCommand } from "./slash-command.ts";

export interface ListenerOptions {
  readonly settings: ReceiveSettings;
  readonly slashCommand: string;
  readonly sink: InboundSink;
  readonly logger: Logger;
  /** Hands `message` and `app_mention` events to the engine (shared with the HTTP intake's fast path). */
  readonly messages: MessageReceiver;
  /**
   * Keeps a slash command's response_url, for answering where the bot is not a member — in the
   * shared store too, before the engine has the command, since a worker may answer it.
   */
  readonly onResponseUrl: (messageId: string, responseUrl: string) => Promise<void>;
}

/**
 * Bolt → engine. The acknowledgement (HTTP response or Socket Mode ack) goes out once these
 * listeners resolved, i.e. once the engine accepted the message — the engine only queues it, so
 * Slack's 3-second deadline waits on the intake, never on a turn. A refusal by the engine
 * (stopping, store down) becomes `EventNotAccepted`, and Slack delivers the event again.
 */
export function registerListeners(app: App, options: ListenerOptions): void {
  const { settings, sink, logger, messages } = options;
  app.event("app_mention", async ({ event, body, context }) =>
    messages.receive("app_mention", event, body, context.retryNum),
  );
  app.event("message", async ({ event, body, context }) =>
    messages.receive("message", event, body, context.retryNum),
  );

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
