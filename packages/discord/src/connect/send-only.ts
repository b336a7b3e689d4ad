import type { Logger } from "@switchboard/core/adapter";
import { type APIUser, type Client, Routes } from "discord.js";
import type { DiscordAdapterConfig } from "../config.ts";
import { createDiscordClient } from "./client.ts";
import { explainStartupError } from "./startup-errors.ts";

/**
 * A discord.js client that is never logged in: no gateway WebSocket is opened, and every channel,
 * guild and message call goes through REST with the bot token. The token is checked once (one
 * `GET /users/@me`), so a worker with a wrong token fails at start, not on its first answer.
 */
export async function openSendOnlyClient(config: DiscordAdapterConfig, logger: Logger): Promise<Client> {
  const client = createDiscordClient(config);
  client.rest.setToken(config.token);
  let bot: APIUser;
  try {
    bot = (await client.rest.get(Routes.user())) as APIUser;
  } catch (error) {
    await client.destroy();
    throw explainStartupError(error, { apiUrl: config.apiUrl });
  }
  logger.info("Discord send-only (REST, no gateway)", { user: bot.username, id: bot.id });
  return client;
}
