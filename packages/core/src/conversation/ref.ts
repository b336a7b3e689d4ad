/**
 * One conversation = one thread (or one DM). Its key is the single string that names it
 * everywhere: the LangGraph thread_id, the lock scope, the dedupe scope and the delivery target.
 *
 * Key format: `<platform>:<path[0]>:<path[1]>…` — platform first, then the platform's ids from
 * the outermost place inward (team/guild, channel/room, thread root). Every part is escaped so
 * that `:` and `%` inside an id can never be confused with the separator: the key always decodes
 * back to exactly the ref it came from.
 */
export interface ConversationRef {
  /** Adapter name: `matrix`, `discord`, `slack`, `console`… (lowercase letters, digits, `-`). */
  readonly platform: string;
  /** Platform ids from the outermost place inward, e.g. `[team, channel, threadTs]`. */
  readonly path: readonly string[];
}

const PLATFORM_PATTERN = /^[a-z][a-z0-9-]*$/;

export class InvalidConversationKeyError extends Error {
  readonly key: string;
  constructor(key: string, reason: string) {
    super(`invalid conversation key ${JSON.stringify(key)}: ${reason}`);
    this.name = "InvalidConversationKeyError";
    this.key = key;
  }
}

function escapePart(part: string): string {
  return part.replaceAll("%", "%25").replaceAll(":", "%3A");
}

function unescapePart(part: string, key: string): string {
  if (/%(?!25|3A)/i.test(part)) throw new InvalidConversationKeyError(key, `bad escape in ${part}`);
  return part.replace(/%3A/gi, ":").replace(/%25/g, "%");
}

export function encodeConversationKey(ref: ConversationRef): string {
  if (!PLATFORM_PATTERN.test(ref.platform)) {
    throw new InvalidConversationKeyError(ref.platform, "platform must match [a-z][a-z0-9-]*");
  }
  if (ref.path.length === 0) throw new InvalidConversationKeyError(ref.platform, "path is empty");
  return [ref.platform, ...ref.path.map(escapePart)].join(":");
}

export function decodeConversationKey(key: string): ConversationRef {
  const [platform, ...parts] = key.split(":");
  if (!platform || !PLATFORM_PATTERN.test(platform))
    throw new InvalidConversationKeyError(key, "bad platform");
  if (parts.length === 0) throw new InvalidConversationKeyError(key, "no path after the platform");
  return { platform, path: parts.map((part) => unescapePart(part, key)) };
}

export function sameConversation(a: ConversationRef, b: ConversationRef): boolean {
  return encodeConversationKey(a) === encodeConversationKey(b);
}
