import type Keyv from "keyv";
import { LRUCache } from "lru-cache";
import type { Logger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";

/** A person's zone is looked up at most this often (a profile change shows within it). */
const CACHE_TTL_MS = 60 * 60_000;
const MAX_CACHED = 10_000;

export interface UserTimeZonesOptions {
  readonly store: Store;
  /** The zone the person's platform profile says (Slack's `users.info`), when the platform has one. */
  readonly profileZone: (platform: string, userId: string) => Promise<string | undefined>;
  /** The zone of people with no setting and no profile zone (`defaults.timeZone`). */
  readonly defaultZone: string;
  readonly logger: Logger;
}

/**
 * Each person's time zone: their own `/timezone` setting (kept in the store, so every process
 * agrees), else their platform profile's zone, else the configured default. Cached per person
 * for an hour, so a prompt costs no platform call and no store read after the first.
 */
export class UserTimeZones {
  readonly #settings: Keyv<string>;
  readonly #options: UserTimeZonesOptions;
  readonly #cache: LRUCache<string, string>;

  constructor(options: UserTimeZonesOptions) {
    this.#options = options;
    this.#settings = options.store.namespace<string>("user-time-zones");
    this.#cache = new LRUCache<string, string>({
      max: MAX_CACHED,
      ttl: CACHE_TTL_MS,
      fetchMethod: (key) => this.#resolve(key),
    });
  }

  /** The zone of people with no setting and no profile zone. */
  get defaultZone(): string {
    return this.#options.defaultZone;
  }

  /** The person's zone: their setting, else their profile's, else the default (cached an hour). */
  async zoneOf(platform: string, userId: string): Promise<string> {
    return (await this.#cache.fetch(personKey(platform, userId))) ?? this.#options.defaultZone;
  }

  /** The person's own setting, if they made one. */
  setting(platform: string, userId: string): Promise<string | undefined> {
    return this.#settings.get(personKey(platform, userId));
  }

  /** Keeps the person's setting (a canonical IANA name); undefined clears it. */
  async set(platform: string, userId: string, zone: string | undefined): Promise<void> {
    const key = personKey(platform, userId);
    if (zone === undefined) await this.#settings.delete(key);
    else await this.#settings.set(key, zone);
    this.#cache.delete(key);
  }

  async #resolve(key: string): Promise<string> {
    const own = await this.#settings.get(key);
    if (own) return own;
    const [platform = "", ...rest] = key.split(":");
    const userId = rest.join(":");
    try {
      const profile = await this.#options.profileZone(platform, userId);
      if (profile && isValidZone(profile)) return profile;
    } catch (error) {
      this.#options.logger.debug("could not read a person's time zone from their profile", {
        platform,
        userId,
        error,
      });
    }
    return this.#options.defaultZone;
  }
}

const personKey = (platform: string, userId: string) => `${platform}:${userId}`;

function isValidZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
