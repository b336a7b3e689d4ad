/** Discord's limit on a thread name. */
import { LRUCache } from "lru-cache";

const MAX_THREAD_NAME = 100;
/** Long enough to recognise the question in the thread list, short enough to read at a glance. */
const PREFERRED_LENGTH = 60;
const REMEMBERED = 1000;
const GENERIC_THREAD_NAME = "Conversation";
/** Mentions that address someone at the start of a message (`<@bot> how do I…`). */
const LEADING_MENTIONS = /^(\s*<@[!&]?\d+>)+/;

/**
 * The name for a thread on a question this process never received (a send-only worker reads the
 * question over REST): as threadNameFor, without the mentions that addressed the bot.
 */
export function threadNameForFetched(content: string, authorName: string): string {
  return threadNameFor(content.replace(LEADING_MENTIONS, ""), authorName);
}

/** A thread name from the question that started it: its first line, cut at a word. */
export function threadNameFor(text: string, authorName: string): string {
  const firstLine = text
    .split("\n")
    .map((line) => line.replace(/[*_`~>#|]/g, "").trim())
    .find((line) => line !== "");
  if (!firstLine) return `Conversation with ${authorName}`.slice(0, MAX_THREAD_NAME);
  if (firstLine.length <= PREFERRED_LENGTH) return firstLine;
  const cut = firstLine.lastIndexOf(" ", PREFERRED_LENGTH);
  return `${firstLine.slice(0, cut > PREFERRED_LENGTH / 2 ? cut : PREFERRED_LENGTH)}…`;
}

/**
 * Names for threads that do not exist yet, by root message id. Only a nicety: when a name has
 * been forgotten (restart, many conversations) the thread gets a generic one.
 */
export class ThreadNames {
  readonly #names = new LRUCache<string, string>({ max: REMEMBERED });

  remember(rootId: string, name: string): void {
    this.#names.set(rootId, name);
  }

  nameFor(rootId: string): string {
    return this.#names.get(rootId) ?? GENERIC_THREAD_NAME;
  }

  has(rootId: string): boolean {
    return this.#names.has(rootId);
  }
}
