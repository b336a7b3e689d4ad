import { type Client, type CloseEvent, Events } from "discord.js";
import { explainStartupError } from "./startup-errors.ts";

/**
 * Logs in and resolves once discord.js is ready (`clientReady`: guilds and channels cached).
 * Any failure becomes a DiscordStartupError that says what to fix.
 */
export async function connectClient(client: Client, token: string, apiUrl: string): Promise<void> {
  let closeCode: number | undefined;
  const onDisconnect = (event: CloseEvent) => {
    closeCode = event.code;
  };
  client.on(Events.ShardDisconnect, onDisconnect);
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  try {
    await client.login(token);
    await ready;
  } catch (error) {
    throw explainStartupError(error, { apiUrl, ...(closeCode === undefined ? {} : { closeCode }) });
  } finally {
    client.off(Events.ShardDisconnect, onDisconnect);
  }
}
