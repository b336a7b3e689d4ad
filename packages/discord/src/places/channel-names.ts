import type { PlaceNames } from "@switchboard/core/adapter";
import type { Client } from "discord.js";
import type { ConversationPlace } from "../receive/places.ts";

/**
 * A conversation's channel and thread names from discord.js's channel cache, which the gateway
 * keeps current (renames included): no request. A thread that does not exist yet (a top-level
 * mention the bot has not answered) has no name.
 */
export function discordPlaceNames(client: Client, place: ConversationPlace): PlaceNames | undefined {
  if (place.kind === "dm") return { room: "direct message" };
  const channel = client.channels.cache.get(place.channelId);
  const thread = place.kind === "thread" ? client.channels.cache.get(place.rootId) : undefined;
  const room = channel && "name" in channel && channel.name ? `#${channel.name}` : undefined;
  const threadName = thread?.isThread() ? thread.name : undefined;
  if (room === undefined && threadName === undefined) return undefined;
  return {
    ...(room === undefined ? {} : { room }),
    ...(threadName === undefined ? {} : { thread: threadName }),
  };
}
