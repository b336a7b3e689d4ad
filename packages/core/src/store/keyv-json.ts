/**
 * keyv's own value format, written and read at the speed of the engine's JSON. keyv's serializer
 * (`@keyv/serialize`) walks every value in JavaScript to escape strings that start with `:` (so
 * that `:base64:` can mark a Buffer) and reads through a `JSON.parse` reviver: 4–5 × slower than
 * `JSON.stringify` and `JSON.parse` for the records we keep (requests, runs, outboxes), on every
 * store operation. Text in which no string starts with `:` and no Buffer appears is the same in
 * both formats, so that is what these two check for; anything else goes through keyv's own
 * functions. Files and Redis keys written by either read the same.
 */
import { defaultDeserialize, defaultSerialize } from "@keyv/serialize";

/**
 * A string token that starts with `:` (a value or a key), in JSON text: its opening quote comes
 * after `{`, `[`, `,` or `:` (whitespace allowed); a quote inside a string is escaped (`\"`).
 */
const COLON_STRING = /[{[,:]\s*":/;
/** How `JSON.stringify` writes a Buffer (keyv writes `:base64:…` instead). */
const BUFFER_JSON = '{"type":"Buffer","data":[';

export function serializeKeyvJson(data: unknown): string {
  if (typeof data !== "object" || data === null) return defaultSerialize(data);
  const text = JSON.stringify(data);
  if (text === undefined || COLON_STRING.test(text) || text.includes(BUFFER_JSON)) {
    return defaultSerialize(data);
  }
  return text;
}

export function deserializeKeyvJson<T>(text: string): T {
  const parsed: unknown =
    /^\s*":/.test(text) || COLON_STRING.test(text) ? defaultDeserialize(text) : JSON.parse(text);
  return parsed as T;
}

/** The options every store's keyv namespaces are made with. */
export const KEYV_OPTIONS = {
  useKeyPrefix: false,
  throwOnErrors: true,
  serialize: serializeKeyvJson,
  deserialize: deserializeKeyvJson,
} as const;
