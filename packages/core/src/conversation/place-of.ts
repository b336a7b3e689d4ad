import { decodeConversationKey, encodeConversationKey } from "./ref.ts";

/**
 * How many path parts name the place (channel, room) a conversation is in. Slack and Discord
 * keys are `[team or guild, channel, thread?]`; a Matrix key is `[room, thread root?]`.
 */
const PLACE_DEPTH: Readonly<Record<string, number>> = { matrix: 1 };
const DEFAULT_PLACE_DEPTH = 2;

/** `slack:T1:C2:1700.1` → `slack:T1:C2`; `matrix:!room:$root` → `matrix:!room`; a DM is its own place. */
export function placeOf(conversationKey: string): string {
  const ref = decodeConversationKey(conversationKey);
  const depth = PLACE_DEPTH[ref.platform] ?? DEFAULT_PLACE_DEPTH;
  return encodeConversationKey({ platform: ref.platform, path: ref.path.slice(0, depth) });
}
