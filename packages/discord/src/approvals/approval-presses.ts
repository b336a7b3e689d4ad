import { type ApprovalDecider, decisionLine, type Logger } from "@switchboard/core/adapter";
import { type ButtonInteraction, MessageFlags } from "discord.js";
import { NO_PINGS } from "../connect/client.ts";
import { PLATFORM } from "../receive/places.ts";
import { parseApprovalButton } from "./approval-buttons.ts";

const NO_MENTIONS = { ...NO_PINGS, parse: [] };

/** The prompt's text with its outcome under it, within Discord's 2,000 characters. */
export function withOutcome(content: string, outcome: string): string {
  const room = 2_000 - outcome.length - 2;
  return `${content.length > room ? `${content.slice(0, room - 1)}…` : content}\n\n${outcome}`;
}

/**
 * Approve / Deny presses (message component interactions). Core decides; here it is shown, within
 * the interaction's 3 seconds: a deciding press updates the message — buttons gone, outcome and
 * who decided in their place — and anyone else, or a late press, gets an ephemeral reply.
 * Returns false for buttons that are not ours.
 */
export async function answerApprovalPress(
  interaction: ButtonInteraction,
  decider: ApprovalDecider | undefined,
  logger: Logger,
): Promise<boolean> {
  const pressed = parseApprovalButton(interaction.customId);
  if (!pressed) return false;
  const tell = (content: string) =>
    interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
  if (!decider) {
    logger.warn("an approval button was pressed, but approvals are not wired to this adapter");
    await tell("Approvals are not available right now; type /approve or /deny instead.");
    return true;
  }
  const { user } = interaction;
  const answer = await decider.decide({
    ...pressed,
    platform: PLATFORM,
    actor: { id: user.id, name: user.displayName },
  });
  switch (answer.kind) {
    case "decided":
      await interaction.update({
        content: withOutcome(interaction.message.content, decisionLine({ ...answer, by: `<@${user.id}>` })),
        components: [],
        allowedMentions: NO_MENTIONS,
      });
      return true;
    case "not-allowed":
      await tell(`Only <@${answer.requesterId}> (or an admin) can approve or deny this.`);
      return true;
    case "not-waiting":
      await tell(
        answer.decided
          ? `This was already decided: ${decisionLine(answer.decided)}.`
          : "This is no longer waiting for a decision.",
      );
      // Decided elsewhere (typed, or the update of the deciding press was lost): the buttons go too.
      if (answer.decided && interaction.message.components.length > 0)
        await interaction.message.edit({
          content: withOutcome(interaction.message.content, decisionLine(answer.decided)),
          components: [],
          allowedMentions: NO_MENTIONS,
        });
      return true;
  }
}
