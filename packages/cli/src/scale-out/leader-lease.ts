/**
 * One lease per singleton (a platform's inbound connection), on the cluster's Redis: taken with
 * SET NX PX, renewed and released only by its holder (compare in a Lua script, never a blind
 * write). Each acquisition draws the next number of a counter that never goes back, the fence:
 * a later leader always holds a larger one, so logs and records tell leaders apart.
 */
import type { LeaseRedis } from "./lease-connection.ts";

const ACQUIRE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local fence = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], fence .. ' ' .. ARGV[1], 'PX', ARGV[2])
return fence`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** A lease this process holds: its fence number and the value only it can renew or release. */
export interface HeldLease {
  readonly fence: number;
  readonly value: string;
}

/** Who holds a lease now, as stored. */
export interface LeaseHolder {
  readonly fence: number;
  readonly holder: string;
}

export class LeaderLease {
  readonly #redis: LeaseRedis;
  readonly #key: string;
  readonly #fenceKey: string;
  readonly #holder: string;

  /** `holder` names this process in the lease (host, pid…): whoever reads it sees who leads. */
  constructor(redis: LeaseRedis, key: string, holder: string) {
    this.#redis = redis;
    this.#key = key;
    this.#fenceKey = `${key}:fence`;
    this.#holder = holder;
  }

  /** Takes the lease when nobody holds it; undefined while someone does. */
  async acquire(ttlMs: number): Promise<HeldLease | undefined> {
    const fence = Number(
      await this.#redis.eval(ACQUIRE, {
        keys: [this.#key, this.#fenceKey],
        arguments: [this.#holder, String(ttlMs)],
      }),
    );
    return fence > 0 ? { fence, value: `${fence} ${this.#holder}` } : undefined;
  }

  /** Pushes the expiry out by `ttlMs`; false when the lease expired or moved on (this process no longer leads). */
  async renew(lease: HeldLease, ttlMs: number): Promise<boolean> {
    return (
      Number(
        await this.#redis.eval(RENEW, { keys: [this.#key], arguments: [lease.value, String(ttlMs)] }),
      ) === 1
    );
  }

  /** Gives the lease up at once (a clean stop), so a standby need not wait for it to expire. */
  async release(lease: HeldLease): Promise<boolean> {
    return Number(await this.#redis.eval(RELEASE, { keys: [this.#key], arguments: [lease.value] })) === 1;
  }

  async holder(): Promise<LeaseHolder | undefined> {
    const value = await this.#redis.get(this.#key);
    if (value === null) return undefined;
    const space = value.indexOf(" ");
    return { fence: Number(value.slice(0, space)), holder: value.slice(space + 1) };
  }
}
