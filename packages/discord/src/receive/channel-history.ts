import type { Client, Message } from "discord.js";
import type { ReadBack } from "./missed-messages.ts";

/**
 * Up to `limit` messages of a channel, thread or DM sent after `afterId`, oldest first (Discord
 * answers `GET /channels/{id}/messages?after=` newest first). Not cached: they are handed on once.
 */
export async function messagesAfter(
  client: Client,
  channelId: string,
  afterId: string,
  limit: number,
): Promise<ReadBack<Message>[]> {
  const channel = await client.channels.fetch(channelId);
  if (!channel?.isTextBased()) return [];
  const page = await channel.messages.fetch({ after: afterId, limit, cache: false });
  return [...page.values()]
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
    .map((message) => ({ id: message.id, message }));
}
