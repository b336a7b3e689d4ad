import type { Logger } from "@switchboard/core/adapter";
import type { SyncEmit, SyncPrimitives } from "../library-patches.ts";
import { describeRequestFailure } from "../sdk/request-failure.ts";
import { type FetchMessages, fillTimelineGaps } from "./gap-filler.ts";
import { historicalEventIds } from "./history.ts";
import { readSyncBatch } from "./sync-response.ts";

/** What the loop learned of a batch before its events are handed on. */
export interface BatchFacts {
  /** Event ids that are history, never to be answered. */
  readonly historical: ReadonlySet<string>;
  /** Invited rooms that are end-to-end encrypted (from the invite's stripped state). */
  readonly encryptedInvites: ReadonlySet<string>;
}

/** Receives what the SDK extracts from each batch. */
export interface BatchHandler {
  /** Called before a batch's events are handed on. */
  beginBatch(facts: BatchFacts): void;
  /** One SDK event (`room.message`, `room.invite`, `room.event`…); the batch waits for it. */
  handle(eventName: string, payload: readonly unknown[]): Promise<void>;
}

export interface SyncTokenStore {
  getSyncToken(): Promise<string | null>;
  setSyncToken(token: string): Promise<void>;
}

export interface SyncLoopOptions {
  readonly client: SyncPrimitives & { emit(eventName: string, ...payload: unknown[]): boolean };
  readonly tokens: SyncTokenStore;
  readonly handler: BatchHandler;
  readonly botUserId: string;
  /** Rooms the bot is in when the loop starts. */
  readonly joinedRooms: readonly string[];
  readonly fetchMessages: FetchMessages;
  readonly maxGapEvents: number;
  /** How long one `/sync` waits for new events; the first sync after start does not wait. */
  readonly syncTimeoutMs: number;
  readonly logger: Logger;
  /** Wait before retrying after the n-th consecutive failure. */
  readonly backoffMs?: (failures: number) => number;
}

// Not core's retryWithBackoff (p-retry): sync is an endless loop that pauses between rounds and
// must keep the paused state stoppable, not one call retried to its end.
const defaultBackoff = (failures: number) => Math.min(1_000 * 2 ** (failures - 1), 30_000);

/**
 * Our sync loop, in place of the SDK's: a batch's token is stored only after every event in it was
 * handed to the engine, so a crash re-delivers the batch (the engine's dedupe drops what it had
 * already accepted) instead of losing it; a failed batch is retried from the same token. Before the
 * SDK sees a batch, history is marked and gaps in limited timelines are filled from `/messages`.
 */
export class SyncLoop {
  readonly #options: SyncLoopOptions;
  readonly #joined: Set<string>;
  #since: string | null = null;
  #stopped = false;
  #batch: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #firstBatchHandled: (() => void) | undefined;

  constructor(options: SyncLoopOptions) {
    this.#options = options;
    this.#joined = new Set(options.joinedRooms);
  }

  /**
   * Starts syncing from the stored token, and resolves once the first batch is handled: on a first
   * start (no token) that batch is the rooms' history, so everything after start() resolves is new;
   * after a restart it is what arrived while the bot was down.
   */
  async start(): Promise<void> {
    this.#since = await this.#options.tokens.getSyncToken();
    if (this.#since === null) {
      this.#options.logger.info("first Matrix sync: messages from before this start are not answered");
    }
    const firstBatch = new Promise<void>((resolve) => {
      this.#firstBatchHandled = resolve;
    });
    // #run never rejects: every failure inside it is logged and retried.
    void this.#run();
    await firstBatch;
  }

  /**
   * Lets a batch being handed on finish (its token is then stored) and ends the loop. A long-poll
   * still waiting is not awaited; whatever it brings is dropped, and the next start fetches it again.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    this.#firstBatchHandled?.();
    // A failed batch was already logged by the loop; stopping only needs it settled.
    await this.#batch?.then(
      () => undefined,
      () => undefined,
    );
  }

  async #run(): Promise<void> {
    const { client, logger, backoffMs = defaultBackoff } = this.#options;
    let failures = 0;
    let handledOne = false;
    while (!this.#stopped) {
      let response: unknown;
      try {
        // The first sync answers at once, so start() does not wait out a long-poll.
        response = await client.fetchSync(this.#since, handledOne ? this.#options.syncTimeoutMs : 0);
      } catch (error) {
        if (this.#stopped) break;
        failures++;
        logger.warn("Matrix sync request failed; retrying", {
          failures,
          error: describeRequestFailure(error).message,
        });
        await this.#pause(backoffMs(failures));
        continue;
      }
      if (this.#stopped) break;
      this.#batch = this.#handleBatch(response);
      try {
        await this.#batch;
        failures = 0;
        handledOne = true;
        this.#firstBatchHandled?.();
      } catch (error) {
        failures++;
        logger.error("handling a Matrix sync batch failed; it will be handled again from the same token", {
          failures,
          error,
        });
        await this.#pause(backoffMs(failures));
      } finally {
        this.#batch = undefined;
      }
    }
  }

  async #handleBatch(response: unknown): Promise<void> {
    const { client, handler, tokens, botUserId, logger } = this.#options;
    const batch = readSyncBatch(response);
    const since = this.#since;
    const joinedBefore = new Set(this.#joined);
    const historical = historicalEventIds(batch, { initial: since === null, joinedBefore, botUserId });
    if (since !== null) {
      await fillTimelineGaps(batch, since, joinedBefore, {
        fetchMessages: this.#options.fetchMessages,
        maxEvents: this.#options.maxGapEvents,
        logger,
      });
    }
    handler.beginBatch({ historical, encryptedInvites: batch.encryptedInvites });
    const emit: SyncEmit = async (eventName, ...payload) => {
      // The SDK's own listeners (DM map, crypto) first, as its own loop would.
      client.emit(eventName, ...payload);
      await handler.handle(eventName, payload);
    };
    await client.dispatchSync(response, emit);
    for (const roomId of batch.joinedRooms) this.#joined.add(roomId);
    for (const roomId of batch.leftRooms) this.#joined.delete(roomId);
    await tokens.setSyncToken(batch.nextBatch);
    this.#since = batch.nextBatch;
    if (historical.size > 0) logger.debug("Matrix history not answered", { events: historical.size });
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
