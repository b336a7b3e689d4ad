import type { ActionRowBuilder, ButtonBuilder } from "discord.js";
import { NO_PINGS } from "../connect/client.ts";

/**
 * What every message posted or edited through a slash command's interaction carries, whichever
 * process answers: the text, no pings, and the Approve / Deny buttons when there are any.
 */
export function interactionMessage(content: string, components?: readonly ActionRowBuilder<ButtonBuilder>[]) {
  return {
    content,
    allowedMentions: { ...NO_PINGS, parse: [] },
    ...(components ? { components: [...components] } : {}),
  };
}
