import type { Adapter } from "@switchboard/core/adapter";
import { LRUCache } from "lru-cache";

export interface PlatformState {
  readonly platform: string;
  /** `connected`: the last probe reached the platform; `unreachable`: it failed; `unchecked`: the adapter has no probe. */
  readonly state: "connected" | "unreachable" | "unchecked";
  readonly detail?: string;
  readonly checkedAt?: number;
  readonly lastEventAt?: number;
}

/** Probes are cached this long: an open health page must not hammer a platform's API. */
const PROBE_TTL_MS = 5_000;
const PROBE_TIMEOUT_MS = 5_000;

/**
 * What the health page knows about each platform connection: when its last event arrived, which
 * turns are running now (the working indicator is on from a turn's start to its end), and whether
 * the platform answers the adapter's own credential and reachability check.
 */
export class PlatformActivity {
  readonly #adapters = new Map<string, Adapter>();
  readonly #lastEvent = new Map<string, number>();
  readonly #running = new Map<string, number>();
  readonly #status = new Map<string, string>();
  /** The time the latest `states` was asked at (its caller's clock), which the probes' TTL reads. */
  #asOf = 0;
  readonly #probes = new LRUCache<string, Promise<PlatformState>>({
    max: 100,
    ttl: PROBE_TTL_MS,
    ttlResolution: 0,
    perf: { now: () => this.#asOf },
  });

  watch(adapter: Adapter): void {
    this.#adapters.set(adapter.platform, adapter);
  }

  noteEvent(platform: string, at = Date.now()): void {
    this.#lastEvent.set(platform, at);
  }

  noteWorking(key: string, active: boolean, at = Date.now()): void {
    if (active) this.#running.set(key, at);
    else {
      this.#running.delete(key);
      this.#status.delete(key);
    }
  }

  /** What a running turn says it is doing; forgotten when the turn ends. */
  noteStatus(key: string, status: string): void {
    if (this.#running.has(key)) this.#status.set(key, status);
  }

  statusOf(key: string): string | undefined {
    return this.#status.get(key);
  }

  /** Conversations with a turn running in this process, and since when. */
  runningTurns(): { key: string; since: number }[] {
    return [...this.#running].map(([key, since]) => ({ key, since })).sort((a, b) => a.since - b.since);
  }

  async states(now = Date.now()): Promise<PlatformState[]> {
    return Promise.all([...this.#adapters.values()].map((adapter) => this.#probe(adapter, now)));
  }

  #probe(adapter: Adapter, now: number): Promise<PlatformState> {
    this.#asOf = now;
    let result = this.#probes.get(adapter.platform);
    if (!result) {
      result = this.#check(adapter, now);
      this.#probes.set(adapter.platform, result);
    }
    const lastEventAt = this.#lastEvent.get(adapter.platform);
    return result.then((state) => ({ ...state, ...(lastEventAt ? { lastEventAt } : {}) }));
  }

  async #check(adapter: Adapter, now: number): Promise<PlatformState> {
    const base = { platform: adapter.platform, checkedAt: now };
    if (!adapter.check)
      return { ...base, state: "unchecked", detail: "this adapter has no reachability check" };
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        adapter.check(),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`)),
            PROBE_TIMEOUT_MS,
          );
        }),
      ]);
      return { ...base, state: "connected" };
    } catch (error) {
      return {
        ...base,
        state: "unreachable",
        detail: error instanceof Error ? error.message : String(error),
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
