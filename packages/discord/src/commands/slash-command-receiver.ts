import type { InboundSink, Logger } from "@switchboard/core/adapter";
import { type ChatInputCommandInteraction, GuildMember, MessageFlags } from "discord.js";
import { type Allowlist, isAllowed } from "../receive/allowlist.ts";
import { locationOf } from "../receive/message-facts.ts";
import type { CommandAnswers } from "../send/command-answers.ts";
import { commandMessage } from "./command-message.ts";
import { findSlashCommand, type SlashCommand } from "./slash-commands.ts";

export interface SlashCommandReceiverOptions {
  readonly allow: Allowlist;
  readonly answers: CommandAnswers;
  readonly sink: InboundSink;
  readonly logger: Logger;
  /** The slash commands registered for this bot. */
  readonly commands: () => readonly SlashCommand[];
}

/** Acknowledges a slash command at once, then hands it to the engine as the chat command it stands for. */
export class SlashCommandReceiver {
  readonly #options: SlashCommandReceiverOptions;

  constructor(options: SlashCommandReceiverOptions) {
    this.#options = options;
  }

  async receive(interaction: ChatInputCommandInteraction): Promise<void> {
    const command = findSlashCommand(interaction.commandName, this.#options.commands());
    if (!command) return;
    const { allow, answers, sink, logger } = this.#options;
    try {
      const location = await locationOf(interaction.channel);
      if (!location || !isAllowed(location, allow)) {
        await interaction.reply({
          content: "Switchboard does not answer in this channel.",
          flags: MessageFlags.Ephemeral,
        });
        return;
      }
      // Discord drops an interaction not acknowledged within 3 s; the answer itself may take minutes.
      const response = await interaction.deferReply({
        withResponse: true,
        ...(command.ephemeral ? { flags: MessageFlags.Ephemeral } : {}),
      });
      const member = interaction.member instanceof GuildMember ? interaction.member : null;
      const message = commandMessage({
        interactionId: interaction.id,
        command,
        argument: command.argument ? interaction.options.getString(command.argument.name) : null,
        location,
        responseMessageId: response.interaction.responseMessageId,
        user: { id: interaction.user.id, displayName: member?.displayName ?? interaction.user.displayName },
        usedAt: interaction.createdTimestamp,
      });
      // Before the engine has the command: a worker may run it, and answer, at once.
      await answers.expect(message.id, interaction, {
        ephemeral: command.ephemeral,
        conversationRoot: location.kind === "channel" ? message.conversation.path.at(-1) : undefined,
      });
      await sink(message);
    } catch (error) {
      logger.error("could not run a Discord slash command", {
        command: command.name,
        interaction: interaction.id,
        error,
      });
      if (interaction.deferred && !interaction.replied) {
        await interaction
          .editReply({ content: "Sorry, that command could not be run." })
          .catch((replyError: unknown) =>
            logger.warn("could not tell the user a slash command failed", { error: replyError }),
          );
      }
    }
  }
}
