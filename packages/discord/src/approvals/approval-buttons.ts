import type { ApprovalPrompt } from "@switchboard/core/adapter";
import { ActionRowBuilder, ButtonBuilder, ButtonStyle } from "discord.js";

/** `switchboard:approve:<request id>` — what a press tells us, within Discord's 100-character custom id. */
const CUSTOM_ID = /^switchboard:(approve|deny):(.+)$/;

export interface PressedButton {
  readonly approved: boolean;
  readonly requestId: string;
}

export function approvalButtons(prompt: ApprovalPrompt): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(`switchboard:approve:${prompt.requestId}`)
      .setLabel("Approve")
      .setStyle(ButtonStyle.Success),
    new ButtonBuilder()
      .setCustomId(`switchboard:deny:${prompt.requestId}`)
      .setLabel("Deny")
      .setStyle(ButtonStyle.Danger),
  );
}

/** Our Approve / Deny buttons, or undefined for any other component. */
export function parseApprovalButton(customId: string): PressedButton | undefined {
  const match = CUSTOM_ID.exec(customId);
  if (!match?.[1] || !match[2]) return undefined;
  return { approved: match[1] === "approve", requestId: match[2] };
}
