import { SHUTDOWN_REASON, TIME_LIMIT_REASON, TurnCancelledError } from "../runtime/errors.ts";
import { runAsBackground } from "../runtime/event-loop.ts";
import { linkSignals } from "../runtime/linked-signal.ts";
import type { QueueEntry } from "../store/types.ts";
import { EngineStoppingError } from "./errors.ts";
import { LOCK_LOST_REASON, LockHeartbeat, lockWasLost } from "./lock-heartbeat.ts";
import { finishUnit, type Hold, QUEUE_PREFIX, takeUnit } from "./queue-unit.ts";
import type { ScheduledDrainOutcome, SerializerHealth, SerializerOptions } from "./serializer-types.ts";
import { TurnAdmission } from "./turn-admission.ts";

export type {
  DrainScheduler,
  MidRunPolicy,
  ScheduledDrainOutcome,
  SerializerHealth,
  SerializerOptions,
} from "./serializer-types.ts";

const LOCK_PREFIX = "lock:";
const WAITER_PREFIX = "lock-wanted:";

/**
 * One turn at a time per conversation, across every instance sharing the store: work is added to
 * the conversation's durable queue (in the platform's order), and whoever holds the conversation's
 * lock drains it. An item leaves the queue only after its work finished, so a crash re-delivers
 * instead of losing it.
 *
 * Liveness: an instance that finds the lock taken marks that it wants it and tries again with
 * backoff while the queue has work; the holder hands the lock over after its current turn when
 * someone wants it (so turns spread over instances), and a dead holder's lock expires within one
 * TTL. The recovery loop (`recover`) picks up queues nobody is draining.
 *
 * Each unit of work is admitted on its own (turn-admission.ts): a conversation with ten queued
 * messages goes back in line after each turn, so it never keeps others waiting for all ten.
 */
export class ConversationSerializer {
  readonly #options: SerializerOptions;
  readonly #draining = new Map<string, Promise<void>>();
  /** Conversations queued again while their drain ran here: drained once more before letting go. */
  readonly #dirty = new Set<string>();
  /** Units admitted or waiting to be: cancelling one cancels its turn, started or not. */
  readonly #running = new Map<string, AbortController>();
  /** Told when the unit running for a conversation ends (`settled`). */
  readonly #settledWaiters = new Map<string, (() => void)[]>();
  readonly #retries = new Map<string, { timer: NodeJS.Timeout; attempt: number }>();
  readonly #admission: TurnAdmission;
  readonly #stopping = new AbortController();
  #lockWaits = 0;
  #stopped = false;

  constructor(options: SerializerOptions) {
    this.#options = options;
    this.#admission = new TurnAdmission({
      maxTurns: options.maxConcurrentTurns,
      ...(options.cpuSlots ? { cpu: options.cpuSlots } : {}),
    });
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /**
   * Queues `item` for the conversation (with `dedupe`, marking it seen in the same atomic step) and
   * makes sure someone drains it. False for a duplicate. Throws while stopping: nothing is marked,
   * so the platform's redelivery is accepted by the next process.
   */
  async submit(
    key: string,
    item: string,
    order: number,
    dedupe?: { key: string; ttlMs: number },
  ): Promise<boolean> {
    if (this.#stopped) throw new EngineStoppingError();
    const queued = await this.#options.atomic.enqueue(QUEUE_PREFIX + key, {
      item,
      order,
      ...(dedupe ? { dedupe } : {}),
    });
    if (!queued) return false;
    if (this.#options.policy === "interrupt")
      this.#running.get(key)?.abort(new Error("a newer message arrived"));
    if (this.#options.scheduler) await this.#announce(key);
    else this.#kick(key);
    return true;
  }

  /**
   * The item is queued and marked seen whatever happens here: when the announcement fails, the
   * scheduler's sweep (`recover`) finds the non-empty queue and announces it again.
   */
  async #announce(key: string): Promise<void> {
    try {
      await this.#options.scheduler?.schedule(key);
    } catch (error) {
      this.#options.logger.warn("could not announce queued work; the next sweep picks it up", { key, error });
    }
  }

  /**
   * Scale-out: drains the conversation's queue here, now, under its lock (the scheduler gave it to
   * this process). Another holder is never waited for: the scheduler tries again later.
   */
  drainScheduled(key: string): Promise<ScheduledDrainOutcome> {
    if (this.#stopped) return Promise.reject(new EngineStoppingError());
    const run = this.#drain(key, { handOver: false });
    const tracked = run.then(
      () => undefined,
      () => undefined,
    );
    this.#draining.set(key, tracked);
    void tracked.finally(() => {
      if (this.#draining.get(key) === tracked) this.#draining.delete(key);
    });
    return run.then((outcome) => (outcome === "locked-elsewhere" ? outcome : "drained"));
  }

  /** Cancels the turn running here for this conversation; false when none runs in this process. */
  cancel(key: string, reason: string): boolean {
    const controller = this.#running.get(key);
    controller?.abort(new Error(reason));
    return controller !== undefined;
  }

  /** Resolves when the unit running here for this conversation has ended (at once when none runs). */
  settled(key: string): Promise<void> {
    if (!this.#running.has(key)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.#settledWaiters.get(key) ?? [];
      waiters.push(resolve);
      this.#settledWaiters.set(key, waiters);
    });
  }

  /** A turn of this conversation is in progress here (or admitted and about to start). */
  isRunning(key: string): boolean {
    return this.#running.has(key) && !this.#admission.isWaiting(key);
  }

  /** The conversation's next turn is waiting here for room to start (the ceiling or a CPU slot). */
  isWaitingToStart(key: string): boolean {
    return this.#admission.isWaiting(key);
  }

  /** The conversation has work queued here while another instance holds its lock. */
  isWaitingForLock(key: string): boolean {
    return this.#retries.has(key);
  }

  /**
   * Picks up queues with work that nobody here is draining or waiting for: left by a crash, a
   * previous run, or an instance that died holding the lock. Returns the conversations kicked.
   */
  async recover(): Promise<string[]> {
    if (this.#stopped) return [];
    const queues = await this.#options.atomic.nonEmptyQueues();
    const withWork = queues
      .filter((queue) => queue.startsWith(QUEUE_PREFIX))
      .map((queue) => queue.slice(QUEUE_PREFIX.length));
    const { scheduler } = this.#options;
    if (scheduler) {
      // Scheduling is idempotent: a conversation being drained or waiting is not scheduled twice.
      for (const key of withWork) await scheduler.schedule(key);
      return withWork;
    }
    const keys = withWork.filter((key) => !this.#draining.has(key) && !this.#retries.has(key));
    for (const key of keys) this.#kick(key);
    return keys;
  }

  /** How many items wait in the conversation's queue (scale-out: is another drain needed?). */
  queued(key: string): Promise<number> {
    return this.#options.atomic.queueLength(QUEUE_PREFIX + key);
  }

  /** The oldest queued item of each conversation with work, for queue-age reports. */
  async queueHeads(): Promise<{ key: string; head: QueueEntry }[]> {
    const heads: { key: string; head: QueueEntry }[] = [];
    for (const queue of await this.#options.atomic.nonEmptyQueues()) {
      if (!queue.startsWith(QUEUE_PREFIX)) continue;
      const head = await this.#options.atomic.peek(queue);
      if (head) heads.push({ key: queue.slice(QUEUE_PREFIX.length), head });
    }
    return heads;
  }

  health(): SerializerHealth {
    const admission = this.#admission.state();
    return {
      runningTurns: admission.turnsInProgress,
      maxTurns: admission.maxTurns,
      waitingToStart: admission.waitingToStart,
      cpuSlots: admission.cpu,
      eventLoop: admission.eventLoop,
      waitingForLock: this.#retries.size,
      lockWaits: this.#lockWaits,
    };
  }

  /**
   * Resolves when nothing is being drained in this process and no conversation it queued work for
   * is still waiting for another holder's lock (a dead process's lock expires within one TTL).
   */
  async idle(): Promise<void> {
    for (;;) {
      while (this.#draining.size > 0) await Promise.allSettled([...this.#draining.values()]);
      if (this.#retries.size === 0 || this.#stopped) return;
      await new Promise((resolve) => setTimeout(resolve, this.#retryDelay(0)));
    }
  }

  /** Stops taking work, cancels running turns, waits for them to end and release their locks. */
  async stop(reason = SHUTDOWN_REASON): Promise<void> {
    this.#stopped = true;
    this.#stopping.abort(new TurnCancelledError(reason));
    for (const { timer } of this.#retries.values()) clearTimeout(timer);
    this.#retries.clear();
    for (const controller of this.#running.values()) controller.abort(new Error(reason));
    while (this.#draining.size > 0) await Promise.allSettled([...this.#draining.values()]);
    this.#admission.stop();
  }

  #kick(key: string): void {
    if (this.#stopped) return;
    if (this.#draining.has(key)) {
      this.#dirty.add(key);
      return;
    }
    // Already waiting for the lock (held elsewhere, or just handed over): the retry picks this up.
    // Starting now would snatch back a conversation we just handed to an instance that wants it.
    if (this.#retries.has(key)) return;
    this.#start(key, 0, { onlyIfQueued: false });
  }

  #start(key: string, attempt: number, options: { onlyIfQueued: boolean }): void {
    // Started from intake or not, draining is background work: its store calls yield to incoming requests.
    const run = runAsBackground(async () => {
      if (options.onlyIfQueued && (await this.#options.atomic.queueLength(QUEUE_PREFIX + key)) === 0) return;
      await this.#drainWhileWanted(key, attempt);
    })
      .catch((error: unknown) => {
        if (error instanceof TurnCancelledError)
          this.#options.logger.info("turn left queued", { key, reason: error.reason });
        else this.#options.logger.error("conversation queue failed; its work stays queued", { key, error });
        // Tried again with backoff, never in a hot loop: a store that was down comes back.
        this.#scheduleRetry(key, attempt + 1);
      })
      .finally(() => this.#draining.delete(key));
    this.#draining.set(key, run);
  }

  async #drainWhileWanted(key: string, attempt: number): Promise<void> {
    do {
      this.#dirty.delete(key);
      const outcome = await this.#drain(key);
      if (outcome !== "drained") {
        if (outcome === "locked-elsewhere") this.#lockWaits += 1;
        this.#scheduleRetry(key, attempt + 1, outcome === "handed-over");
        return;
      }
    } while (this.#dirty.has(key) && !this.#stopped);
  }

  /** Looks again later, while the queue still has work. */
  #scheduleRetry(key: string, attempt: number, handedOver = false): void {
    if (this.#stopped || this.#retries.has(key)) return;
    const timer = setTimeout(
      () => {
        this.#retries.delete(key);
        if (!this.#stopped && !this.#draining.has(key)) this.#start(key, attempt, { onlyIfQueued: true });
      },
      this.#retryDelay(attempt, handedOver),
    );
    timer.unref?.();
    this.#retries.set(key, { timer, attempt });
  }

  /**
   * While another instance holds the lock: polls every 100–200 ms (it hands over after its current
   * turn when we want the conversation), never more than half a TTL apart. After handing over:
   * longer, so the instance we handed to gets the lock first. Not retryWithBackoff (p-retry):
   * this schedules a timer per waiting conversation and returns, instead of awaiting a loop.
   */
  #retryDelay(attempt: number, handedOver = false): number {
    const ceiling = Math.max(20, Math.floor(this.#options.lockTtlMs / 2));
    const base = handedOver ? 400 : 100 * 2 ** Math.min(attempt, 1);
    const delay = Math.min(ceiling, base);
    return Math.floor(delay / 2 + Math.random() * (delay / 2));
  }

  /**
   * Runs the queue's work while holding the lock. "locked-elsewhere": another instance holds it;
   * "handed-over": we let go after a turn because another instance wants the conversation.
   */
  async #drain(
    key: string,
    options: { handOver: boolean } = { handOver: true },
  ): Promise<"drained" | "locked-elsewhere" | "handed-over"> {
    const { atomic, lockTtlMs, logger } = this.#options;
    const lockKey = LOCK_PREFIX + key;
    // The lock and the first item in one step: a message in an idle conversation costs no extra peek.
    const locked = await atomic.acquireLockAndPeek(lockKey, QUEUE_PREFIX + key, lockTtlMs);
    if (!locked) {
      if (options.handOver) await atomic.setIfAbsent(WAITER_PREFIX + key, "1", lockTtlMs);
      return "locked-elsewhere";
    }
    const hold: Hold = { lockKey, token: locked.token, released: false };
    // Room to start a turn is waited for while holding the lock (its heartbeat running): failed
    // lock attempts never take a place in line, so polling never crowds out turns.
    const heartbeat = new LockHeartbeat({
      atomic,
      lockKey,
      token: hold.token,
      ttlMs: lockTtlMs,
      onLost: () => logger.error("lost the conversation lock mid-turn; cancelling the turn", { key }),
      stopRequested: () => this.#options.stopRequested(key),
      onError: (error) => logger.warn("lock heartbeat failed", { key, error }),
    });
    try {
      return await this.#drainHolding(key, heartbeat, {
        hold,
        head: locked.head,
        handOver: options.handOver,
      });
    } finally {
      heartbeat.stop();
      if (!hold.released) await atomic.releaseLock(lockKey, hold.token);
    }
  }

  async #drainHolding(
    key: string,
    heartbeat: LockHeartbeat,
    lease: { hold: Hold; head: QueueEntry | null; handOver: boolean },
  ): Promise<"drained" | "handed-over"> {
    const { atomic, lockTtlMs } = this.#options;
    const { hold, handOver } = lease;
    // The item read with the lock starts the drain; every later unit is peeked afresh.
    let peeked: QueueEntry | null | undefined = lease.head;
    while (!this.#stopped) {
      const entries = await takeUnit(this.#options.atomic, key, this.#options.policy, peeked);
      peeked = undefined;
      if (entries.length === 0) return "drained";
      const remaining = await this.#runUnit(key, entries, heartbeat, hold);
      if (remaining === 0) return "drained";
      if (handOver && (await atomic.takeMark(WAITER_PREFIX + key))) {
        // Our own remaining work makes us the one waiting now: the taker hands back after its turn.
        await atomic.setIfAbsent(WAITER_PREFIX + key, "1", lockTtlMs);
        return "handed-over";
      }
    }
    return "drained";
  }

  /** Runs one unit of work under a fresh cancel signal; returns how many items the queue still holds. */
  async #runUnit(key: string, entries: QueueEntry[], heartbeat: LockHeartbeat, hold: Hold): Promise<number> {
    const controller = new AbortController();
    this.#running.set(key, controller);
    heartbeat.attach(controller);
    let overrun: NodeJS.Timeout | undefined;
    try {
      const turn = await this.#admit(key, controller.signal);
      overrun = setTimeout(() => controller.abort(new Error(TIME_LIMIT_REASON)), this.#options.maxTurnMs);
      overrun.unref?.();
      const work = () =>
        this.#options.work(
          key,
          entries.map((entry) => entry.item),
          controller.signal,
        );
      try {
        await (turn ? turn.lease.run(work) : work());
      } finally {
        turn?.end();
      }
    } finally {
      clearTimeout(overrun);
      this.#running.delete(key);
      for (const settle of this.#settledWaiters.get(key) ?? []) settle();
      this.#settledWaiters.delete(key);
    }
    // Whatever the work made of it: without the lock this unit is no longer ours to acknowledge.
    // The items stay queued for the instance that holds the lock now.
    if (lockWasLost(controller.signal)) throw new TurnCancelledError(LOCK_LOST_REASON);
    return finishUnit(this.#options.atomic, key, entries, heartbeat, hold);
  }

  /**
   * Room for the unit to start. Undefined when its turn was stopped by the user while it waited:
   * the work then runs at once, without a slot, and ends as a stopped turn does. A lost lock or a
   * stopping serializer leaves the items queued.
   */
  async #admit(key: string, signal: AbortSignal) {
    // Linked, not AbortSignal.any: `#stopping` lives as long as the serializer, and any() would
    // leave a registration with it for every turn.
    const waiting = linkSignals([signal, this.#stopping.signal]);
    try {
      return await this.#admission.admit(key, waiting.signal);
    } catch (error) {
      if (lockWasLost(signal)) throw new TurnCancelledError(LOCK_LOST_REASON);
      if (this.#stopping.signal.aborted) throw this.#stopping.signal.reason;
      if (signal.aborted) return undefined;
      throw error;
    } finally {
      waiting.unlink();
    }
  }
}
