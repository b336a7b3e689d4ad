import type { ContinuationHandler, ContinuationWork, Responder, TurnObserver } from "../engine/responder.ts";
import type { RetryLaterSettings } from "../models/spec.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { ScheduleDriver } from "../schedules/schedule-driver.ts";
import type { Store } from "../store/types.ts";
import type { RetryDelivery } from "./countdown.ts";
import { RETRY_LATER, RetryFirer, type TryQueue } from "./retry-firer.ts";
import { RetryRuns } from "./retry-runs.ts";
import { RetryStore } from "./retry-store.ts";
import { type RetryLaterObserver, WaitingRetries } from "./waiting-retries.ts";

export interface CreateRetryLaterOptions {
  readonly store: Store;
  readonly settings: RetryLaterSettings;
  /** The team as the engine runs it (tracked and observed), once it exists. */
  readonly responder: () => Responder;
  readonly observers?: () => readonly TurnObserver[];
  readonly observer?: RetryLaterObserver;
  /** How often the due index is read; a timer also wakes the driver at the earliest due try. */
  readonly pollMs?: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Later retries wired in one place: `engine` and `continuations` to the engine, then `bind(engine)`. */
export interface RetryLater {
  readonly settings: RetryLaterSettings;
  readonly store: RetryStore;
  /** The engine's `laterRetries`. */
  readonly engine: WaitingRetries;
  /** The engine's continuation handler: tries here, everything else to `others`. */
  continuations(others: ContinuationHandler): ContinuationHandler;
  /** Connects to the engine that queues tries and owns the outbox. */
  bind(engine: TryQueue & RetryDelivery): void;
  /** Role `all`: queues due tries from this process (the due index, polled, no timer a restart forgets). */
  startDriving(): void;
  /** A cluster: one round of queueing due tries, run once per cluster every `pollMs`. */
  fireRound(): Promise<{ fired: number }>;
  readonly pollMs: number;
  /** Resolves when no round runs here (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const DEFAULT_POLL_MS = 5_000;

export function createRetryLater(options: CreateRetryLaterOptions): RetryLater {
  const { settings, clock, logger } = options;
  const store = new RetryStore(options.store, () => clock.now());
  let engine: (TryQueue & RetryDelivery) | undefined;
  let driver: ScheduleDriver | undefined;
  const bound = () => {
    if (!engine) throw new Error("retryLater.bind(engine) was not called");
    return engine;
  };
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const firer = new RetryFirer({ store, queue: bound, clock, logger });
  // A try due before the next poll: the driver wakes at its time instead of up to a poll late.
  const planned = () => driver?.kick();
  const waiting = new WaitingRetries({
    store,
    settings,
    delivery: bound,
    planned,
    ...(options.observer ? { observer: options.observer } : {}),
    clock,
    logger,
  });
  let runs: RetryRuns | undefined;
  const runsFor = () => {
    runs ??= new RetryRuns({
      store,
      settings,
      responder: options.responder(),
      observers: options.observers?.() ?? [],
      delivery: bound,
      planned,
      ...(options.observer ? { observer: options.observer } : {}),
      clock,
      logger,
    });
    return runs;
  };
  return {
    settings,
    store,
    engine: waiting,
    continuations(others) {
      return {
        continue: (work: ContinuationWork) =>
          work.continuation.type === RETRY_LATER ? runsFor().continue(work) : others.continue(work),
      };
    },
    bind(target) {
      engine = target;
    },
    startDriving() {
      driver = new ScheduleDriver({ store, firer, pollMs, clock, logger }, "switchboard.retry-later");
      driver.start();
    },
    fireRound: () => firer.fireDue(),
    pollMs,
    async idle() {
      await driver?.settled();
    },
    async stop() {
      await driver?.stop();
    },
  };
}
