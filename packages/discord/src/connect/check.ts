import { type APIApplication, ApplicationFlags, REST, Routes } from "discord.js";
import { explainStartupError, startupFailure } from "./startup-errors.ts";

const MESSAGE_CONTENT_FLAGS =
  ApplicationFlags.GatewayMessageContent | ApplicationFlags.GatewayMessageContentLimited;

/**
 * Verifies the token and that the Message Content intent is switched on, over REST only (no
 * gateway session): what `switchboard doctor` runs.
 */
export async function checkDiscordAccess(token: string, apiUrl: string): Promise<void> {
  const rest = new REST({ api: apiUrl }).setToken(token);
  let application: APIApplication;
  try {
    await rest.get(Routes.user());
    application = (await rest.get(Routes.currentApplication())) as APIApplication;
  } catch (error) {
    throw explainStartupError(error, { apiUrl });
  }
  if (((application.flags ?? 0) & MESSAGE_CONTENT_FLAGS) === 0) {
    throw startupFailure("disallowed-intents");
  }
}
