import type { InboundMessage } from "../conversation/messages.ts";
import type { LaterRetries } from "../engine/later-retries.ts";
import type { Turn } from "../engine/responder.ts";
import { ModelUnavailableError } from "../models/retry.ts";
import { causeChain } from "../models/retry-policy.ts";
import type { RetryLaterSettings } from "../models/spec.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { currentTryAnswered, editCountdown, type RetryDelivery } from "./countdown.ts";
import {
  CANCELLED_TEXT,
  countdownText,
  delayBeforeTry,
  type RetryRecord,
  type RetryStatus,
  SUPERSEDED_TEXT,
} from "./retry-record.ts";
import type { RetryStore } from "./retry-store.ts";

/** Hears what later retries do (metrics, logs). Must not throw. */
export interface RetryLaterObserver {
  planned?(record: RetryRecord): void;
  ended?(record: RetryRecord, status: Exclude<RetryStatus, "waiting">): void;
}

export interface WaitingRetriesOptions {
  readonly store: RetryStore;
  readonly settings: RetryLaterSettings;
  readonly delivery: () => RetryDelivery;
  /** A retry was recorded: the driver looks at the due index (its wake timer follows the earliest). */
  readonly planned: () => void;
  readonly observer?: RetryLaterObserver;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * The engine's side of later retries: a turn that failed because the model was unavailable gets a
 * durable retry record (before its countdown is posted), a newer message in the thread supersedes
 * it, `/stop` cancels it. One retry waits per thread at most: the newer message's own failure
 * replaces the older one.
 */
export class WaitingRetries implements LaterRetries {
  readonly #options: WaitingRetriesOptions;

  constructor(options: WaitingRetriesOptions) {
    this.#options = options;
  }

  async planned(
    turn: Turn,
    _messages: readonly InboundMessage[],
    error: unknown,
  ): Promise<string | undefined> {
    const { store, settings, clock, logger } = this.#options;
    const unavailable = causeChain(error).find((link) => link instanceof ModelUnavailableError);
    if (!(unavailable instanceof ModelUnavailableError) || settings.attempts === 0) return undefined;
    // The same work again after a crash keeps the retry it recorded (and its countdown's text).
    const existing = await store.get(turn.workId);
    if (existing) return existing.status === "waiting" ? existing.firstNotice : undefined;
    const { raw: _raw, ...message } = turn.message;
    const delay = delayBeforeTry(settings, 1);
    const now = clock.now();
    const record: RetryRecord = {
      id: turn.workId,
      key: turn.key,
      message,
      text: turn.text,
      attempt: 1,
      attempts: settings.attempts,
      dueAt: now + delay,
      status: "waiting",
      createdAt: now,
      firstNotice: countdownText(delay, turn.commandPrefix),
    };
    await store.save(record);
    logger.info("the model is unavailable: the turn is tried again later", {
      key: turn.key,
      retryId: record.id,
      dueInMs: delay,
      circuitOpen: unavailable.circuitOpen,
    });
    this.#options.observer?.planned?.(record);
    this.#options.planned();
    return record.firstNotice;
  }

  async supersede(key: string, workId: string): Promise<void> {
    const waiting = await this.#options.store.waitingIn(key);
    if (!waiting || waiting.id === workId) return;
    await this.#end(waiting, "superseded", SUPERSEDED_TEXT);
  }

  async cancel(key: string): Promise<boolean> {
    const waiting = await this.#options.store.waitingIn(key);
    if (!waiting) return false;
    return this.#end(waiting, "cancelled", CANCELLED_TEXT);
  }

  /** Ends a waiting retry and says why in its countdown; false when its try had already answered. */
  async #end(record: RetryRecord, status: "superseded" | "cancelled", text: string): Promise<boolean> {
    const { store, logger } = this.#options;
    const delivery = this.#options.delivery();
    // A try that answered and died before its record said so: the countdown already is the answer.
    if (await currentTryAnswered(delivery.outbox, record)) {
      await store.save({ ...record, status: "answered" });
      this.#options.observer?.ended?.(record, "answered");
      return false;
    }
    await store.save({ ...record, status });
    logger.info(`a later retry was ${status}`, { key: record.key, retryId: record.id });
    this.#options.observer?.ended?.(record, status);
    await editCountdown(delivery, record, text, logger);
    return true;
  }
}
