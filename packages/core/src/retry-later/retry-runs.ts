import { randomBytes } from "node:crypto";
import type { PostedMessage } from "../conversation/messages.ts";
import type { Delivery } from "../delivery/deliverer.ts";
import type { ContinuationWork, Responder, Turn, TurnObserver } from "../engine/responder.ts";
import { ModelUnavailableError } from "../models/retry.ts";
import { causeChain } from "../models/retry-policy.ts";
import type { RetryLaterSettings } from "../models/spec.ts";
import type { Clock } from "../runtime/clock.ts";
import { userMessageOf } from "../runtime/errors.ts";
import type { Logger } from "../runtime/logger.ts";
import { countdownOf, type RetryDelivery } from "./countdown.ts";
import { countdownText, delayBeforeTry, gaveUpText, type RetryRecord } from "./retry-record.ts";
import type { RetryStore } from "./retry-store.ts";
import type { RetryLaterObserver } from "./waiting-retries.ts";

export interface RetryRunsOptions {
  readonly store: RetryStore;
  readonly settings: RetryLaterSettings;
  /** The team, as the engine runs it for a message (the same message continues its request). */
  readonly responder: Responder;
  readonly observers: readonly TurnObserver[];
  readonly delivery: () => RetryDelivery;
  readonly planned: () => void;
  readonly observer?: RetryLaterObserver;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * One later try, run as queued work of its thread (the continuation the firer queued once), so it
 * waits behind the thread's messages. Everything it says goes through the try's outbox as an edit
 * of the countdown: the answer replaces it, a further failure turns it into the next countdown, the
 * last one into "please ask again later". The record is changed before an edit that announces the
 * change and after an answer is recorded, so a crash at any point neither loses the try nor
 * answers twice: a re-run of the try finds the answer in its outbox, or the record ahead of the
 * countdown and shows it again.
 */
export class RetryRuns {
  readonly #options: RetryRunsOptions;

  constructor(options: RetryRunsOptions) {
    this.#options = options;
  }

  async continue(work: ContinuationWork): Promise<void> {
    const { store, logger } = this.#options;
    const data = work.continuation.data ?? {};
    const attempt = Number(data.attempt);
    const record = await store.get(String(data.retryId ?? ""));
    if (!record) {
      logger.warn("a later try of an unknown retry was dropped", { key: work.key, retryId: data.retryId });
      return;
    }
    const countdown = await this.#countdown(record);
    if (record.attempt === attempt && record.status === "gave_up") {
      // Given up by this try before a crash took its last word: say it again.
      await this.#say(work, record, countdown, gaveUpText(record.attempts));
      return;
    }
    if (record.attempt === attempt + 1 && record.status === "waiting") {
      // This try failed and set the next one before a crash took its countdown: show it again.
      await this.#say(
        work,
        record,
        countdown,
        countdownText(record.dueAt - this.#options.clock.now(), work.commandPrefix),
      );
      return;
    }
    if (record.status !== "waiting" || record.attempt !== attempt) {
      logger.info("a later try was not run: its retry has moved on", {
        retryId: record.id,
        attempt,
        status: record.status,
      });
      return;
    }
    if (countdown === undefined) {
      // The failed turn itself was answered when it ran again after a crash.
      await this.#end(record, "answered");
      return;
    }
    await this.#try(work, record, countdown);
  }

  async #try(
    work: ContinuationWork,
    record: RetryRecord,
    countdown: readonly PostedMessage[],
  ): Promise<void> {
    const { responder, observers, logger } = this.#options;
    const turn: Turn = {
      key: record.key,
      conversation: record.message.conversation,
      message: record.message,
      text: record.text,
      signal: work.signal,
      workId: work.workId,
      ...(work.commandPrefix ? { commandPrefix: work.commandPrefix } : {}),
    };
    let answer: Awaited<ReturnType<Responder["respond"]>>;
    try {
      answer = await responder.respond(turn);
    } catch (error) {
      if (work.signal.aborted) throw error;
      await this.#failed(work, record, countdown, error);
      return;
    }
    work.signal.throwIfAborted();
    await this.#say(work, record, countdown, answer.text, answer);
    await this.#end(record, "answered");
    logger.info("a turn the model could not answer was answered on a later try", {
      key: record.key,
      retryId: record.id,
      attempt: record.attempt,
    });
    for (const observer of observers) {
      try {
        observer.afterDelivery?.(turn, answer);
      } catch (error) {
        logger.error("turn observer failed", { key: record.key, error });
      }
    }
  }

  async #failed(
    work: ContinuationWork,
    record: RetryRecord,
    countdown: readonly PostedMessage[],
    error: unknown,
  ): Promise<void> {
    const { store, settings, clock, logger } = this.#options;
    const unavailable = causeChain(error).some((link) => link instanceof ModelUnavailableError);
    if (unavailable && record.attempt < record.attempts) {
      const delay = delayBeforeTry(settings, record.attempt + 1);
      const next: RetryRecord = { ...record, attempt: record.attempt + 1, dueAt: clock.now() + delay };
      await store.save(next);
      this.#options.planned();
      logger.info("the model is still unavailable: the turn is tried again later", {
        key: record.key,
        retryId: record.id,
        attempt: next.attempt,
        dueInMs: delay,
      });
      await this.#say(work, next, countdown, countdownText(delay, work.commandPrefix));
      return;
    }
    if (unavailable) {
      logger.warn("the model stayed unavailable through every later try", {
        key: record.key,
        retryId: record.id,
        attempts: record.attempts,
      });
      await this.#end(record, "gave_up");
      await this.#say(work, record, countdown, gaveUpText(record.attempts));
      return;
    }
    const reference = randomBytes(3).toString("hex");
    logger.error("a later try failed", { key: record.key, retryId: record.id, reference, error });
    await this.#end(record, "failed");
    await this.#say(
      work,
      record,
      countdown,
      userMessageOf(error) ?? `Sorry, something went wrong while answering (reference ${reference}).`,
    );
  }

  /** The countdown's messages, when the platform can edit them (else the answer is posted anew). */
  async #countdown(record: RetryRecord): Promise<readonly PostedMessage[] | undefined> {
    return countdownOf(this.#options.delivery().outbox, record);
  }

  /** Through the try's outbox: recorded before posting, an edit of the countdown where it can be. */
  async #say(
    work: ContinuationWork,
    record: RetryRecord,
    countdown: readonly PostedMessage[] | undefined,
    text: string,
    answer?: Awaited<ReturnType<Responder["respond"]>>,
  ): Promise<void> {
    const canEdit =
      this.#options.delivery().deliverer.adapterFor(record.message.conversation).edit !== undefined;
    const delivery: Delivery = {
      conversation: record.message.conversation,
      text,
      replyTo: record.message.id,
      recipientId: record.message.author.id,
      ...(answer?.agent === undefined ? {} : { agent: answer.agent }),
      ...(answer?.approval ? { approval: answer.approval } : {}),
      ...(answer?.files?.length ? { files: answer.files } : {}),
      ...(canEdit && countdown?.length ? { placeholders: countdown } : {}),
    };
    if (text.trim() === "" && !answer?.files?.length) return;
    await work.deliver(delivery);
  }

  async #end(record: RetryRecord, status: "answered" | "gave_up" | "failed"): Promise<void> {
    await this.#options.store.save({ ...record, status });
    this.#options.observer?.ended?.(record, status);
  }
}
