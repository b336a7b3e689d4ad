import { LRUCache } from "lru-cache";

/** The part of a core Store namespace (a Keyv) this file uses. */
export interface SharedKeyValue {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs?: number): Promise<unknown>;
}

/** Slack accepts answers on a response_url for 30 minutes; stop using one a little before Slack does. */
export const RESPONSE_URL_LIFETIME_MS = 29 * 60 * 1000;

const keyOf = (messageId: string) => `response-url:${messageId}`;

/**
 * Slash commands' response_urls, by the command's message id (what an answer's `replyTo` holds):
 * the only way to answer a command used where the bot is not a member. The process that received
 * the command remembers it in memory; the shared store (when given) lets any other process — a
 * worker — answer the same way, until the URL expires.
 */
export class ResponseUrls {
  readonly #recent = new LRUCache<string, string>({ max: 1_000, ttl: RESPONSE_URL_LIFETIME_MS });
  readonly #shared: SharedKeyValue | undefined;

  constructor(shared: SharedKeyValue | undefined) {
    this.#shared = shared;
  }

  /** Written before the command is handed to the engine: a worker may answer it at once. */
  async keep(messageId: string, responseUrl: string): Promise<void> {
    this.#recent.set(messageId, responseUrl);
    await this.#shared?.set(keyOf(messageId), responseUrl, RESPONSE_URL_LIFETIME_MS);
  }

  async find(messageId: string): Promise<string | undefined> {
    return this.#recent.get(messageId) ?? (await this.#shared?.get(keyOf(messageId)));
  }
}
