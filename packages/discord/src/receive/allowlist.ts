import type { ChannelLocation } from "./places.ts";

export interface Allowlist {
  /** Empty: every guild. */
  readonly guildIds: readonly string[];
  /** Empty: every channel; a thread is allowed when its parent channel is. */
  readonly channelIds: readonly string[];
  readonly directMessages: boolean;
}

/** Whether the operator lets the bot serve this place at all (checked before anything is reported). */
export function isAllowed(location: ChannelLocation, allow: Allowlist): boolean {
  if (location.kind === "dm") return allow.directMessages;
  if (allow.guildIds.length > 0 && !allow.guildIds.includes(location.guildId)) return false;
  if (allow.channelIds.length === 0) return true;
  const channels = location.kind === "thread" ? [location.parentId, location.threadId] : [location.channelId];
  return channels.some((id) => allow.channelIds.includes(id));
}
