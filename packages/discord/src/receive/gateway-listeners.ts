import type { ApprovalDecider, InboundSink, Logger } from "@switchboard/core/adapter";
import { type Client, Events } from "discord.js";
import { answerApprovalPress } from "../approvals/approval-presses.ts";
import type { SlashCommandReceiver } from "../commands/slash-command-receiver.ts";
import type { MessageReceiver } from "./message-receiver.ts";

export interface GatewayListenerOptions {
  readonly sink: InboundSink;
  readonly messages: MessageReceiver;
  readonly slash: SlashCommandReceiver;
  /** Decides Approve / Deny presses; read at each press, since core sets it after the adapter exists. */
  readonly approvals: () => ApprovalDecider | undefined;
  readonly logger: Logger;
}

/**
 * discord.js gateway events → their receivers: messages and edits, slash commands, approval
 * button presses; the client's own errors and reconnects go to the log. Registered before the
 * client connects, so nothing the gateway sends on connecting is missed.
 */
export function registerGatewayListeners(client: Client, options: GatewayListenerOptions): void {
  const { sink, messages, slash, logger } = options;
  client.on(Events.MessageCreate, (message) => void messages.receive(client, sink, message, false));
  client.on(Events.MessageUpdate, (before, after) => {
    // Only a change of text is an edit; thread creation, embeds unfurling etc. also send updates.
    if (!before.partial && before.content === after.content) return;
    void messages.receive(client, sink, after, true);
  });
  client.on(Events.InteractionCreate, (interaction) => {
    if (interaction.isChatInputCommand()) void slash.receive(interaction);
    else if (interaction.isButton())
      answerApprovalPress(interaction, options.approvals(), logger).catch((error: unknown) =>
        logger.error("could not answer an approval button", { id: interaction.id, error }),
      );
  });
  client.on(Events.Error, (error) => logger.error("Discord client error", { error }));
  client.on(Events.ShardError, (error) => logger.warn("Discord gateway connection error", { error }));
  client.on(Events.ShardReconnecting, () => logger.info("reconnecting to the Discord gateway"));
}
