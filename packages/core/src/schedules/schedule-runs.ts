import { randomBytes } from "node:crypto";
import type { ContinuationWork } from "../engine/responder.ts";
import type { InitiatedAnswer, InitiatedRun } from "../runs/tracked-team.ts";
import type { Clock } from "../runtime/clock.ts";
import { userMessageOf } from "../runtime/errors.ts";
import type { Logger } from "../runtime/logger.ts";
import { type DigestSources, digestMaterial } from "./digest-material.ts";
import { SCHEDULE_SKIPPED, type ScheduleObserver } from "./schedule-firer.ts";
import { changeSchedule, type FireOutcome, type ScheduleRecord } from "./schedule-record.ts";
import type { ScheduleStore } from "./schedule-store.ts";
import { scheduledRunText, skippedText } from "./schedule-texts.ts";

/** Runs the team for a fire: the tracked team, which records the run as a request with trigger `schedule`. */
export interface InitiatedRunner {
  /** Runs the team in the run's thread under a request of its own; resolves with what to post. */
  runInitiated(run: InitiatedRun): Promise<InitiatedAnswer>;
}

export interface ScheduleRunsOptions {
  readonly store: ScheduleStore;
  readonly runner: () => InitiatedRunner;
  readonly digests: DigestSources;
  readonly catchUpMs: number;
  /** The sentence that refuses a run when its owner or thread is over a usage cap; undefined: it may run. */
  readonly refusal?: (userId: string, key: string) => Promise<string | undefined>;
  readonly observer?: ScheduleObserver;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** A digest's first run summarises this far back. */
const FIRST_DIGEST_MS = 24 * 3_600_000;

/**
 * A fire in its home thread. It runs as queued work of that thread (the continuation the firer
 * queued once), so it waits its turn behind the thread's messages; the run is a request of its own
 * (trigger `schedule`, tokens and cost in the run-steps log like a turn's), and its post goes
 * through the work's outbox — recorded before posting, so a crash never loses or doubles it. A
 * place that can no longer be posted to (the bot was removed) pauses the schedule instead of failing
 * at every fire.
 */
export class ScheduleRuns {
  readonly #options: ScheduleRunsOptions;

  constructor(options: ScheduleRunsOptions) {
    this.#options = options;
  }

  async continue(work: ContinuationWork): Promise<void> {
    const { store, logger } = this.#options;
    const data = work.continuation.data ?? {};
    const record = await store.get(String(data.scheduleId ?? ""));
    if (!record) {
      logger.warn("a fire of an unknown schedule was dropped", {
        scheduleId: data.scheduleId,
        key: work.key,
      });
      return;
    }
    if (work.continuation.type === SCHEDULE_SKIPPED) {
      const skipped = { count: Number(data.count), first: Number(data.first), last: Number(data.last) };
      await this.#post(record, work, { text: skippedText(record, skipped, this.#options.catchUpMs) });
      return;
    }
    await this.#fire(record, Number(data.dueAt), work);
  }

  async #fire(record: ScheduleRecord, dueAt: number, work: ContinuationWork): Promise<void> {
    const { store, clock, logger } = this.#options;
    if (record.status === "cancelled" || record.status === "paused") {
      // Queued before a person paused or cancelled it: they asked for silence.
      logger.info("a fire of a paused or cancelled schedule was not run", {
        scheduleId: record.id,
        status: record.status,
      });
      await this.#finish(record, dueAt, "dropped");
      return;
    }
    const refused = await this.#options.refusal?.(record.ownerId, record.home.key);
    if (refused) {
      logger.info("a scheduled run was refused by a usage limit", { scheduleId: record.id, dueAt });
      const posted = await this.#post(record, work, {
        text: `Schedule ${record.id} (${record.title}) did not run: ${refused}`,
      });
      await this.#finish(record, dueAt, posted ? "failed" : "undeliverable");
      return;
    }
    const entry = await store.fire(record.id, dueAt);
    const lateMs = Math.max(0, (entry?.firedAt ?? clock.now()) - dueAt);
    const digest = record.digest
      ? await this.#digest(record.digest.place, entry?.previousDueAt ?? dueAt - FIRST_DIGEST_MS, dueAt)
      : undefined;
    let answer: { text: string; agent?: string; approval?: InitiatedAnswer["approval"] };
    let outcome: FireOutcome = "posted";
    let ids: { requestId?: string; runId?: string } = {};
    try {
      const ran = await this.#options.runner().runInitiated({
        key: record.home.key,
        conversation: record.home.post,
        originId: `schedule:${record.id}:${dueAt}`,
        ...(record.home.replyTo ? { replyTo: record.home.replyTo } : {}),
        userId: record.ownerId,
        text: scheduledRunText(record, dueAt, lateMs, digest),
        trigger: "schedule",
        signal: work.signal,
        ...(work.commandPrefix ? { commandPrefix: work.commandPrefix } : {}),
      });
      answer = ran;
      ids = { requestId: ran.requestId, runId: ran.runId };
    } catch (error) {
      if (work.signal.aborted) throw error;
      const reference = randomBytes(3).toString("hex");
      logger.error("a scheduled run failed", { scheduleId: record.id, dueAt, reference, error });
      answer = {
        text:
          userMessageOf(error) ??
          `Schedule ${record.id} (${record.title}) could not run this time (reference ${reference}).`,
      };
      outcome = "failed";
    }
    // Recorded before the post: once the outbox holds the answer, a restart delivers it without
    // running this handler again, and the fire must not stay without its outcome and its run.
    await this.#record(record, dueAt, outcome, ids);
    const posted = await this.#post(record, work, answer);
    if (!posted) await this.#record(record, dueAt, "undeliverable", ids);
    this.#options.observer?.finished?.(record, posted ? outcome : "undeliverable");
  }

  async #digest(place: string, since: number, until: number) {
    return { since, conversations: await digestMaterial(this.#options.digests, place, since, until) };
  }

  /** Posts into the schedule's place; false (and the schedule paused) when the place refused it. */
  async #post(
    record: ScheduleRecord,
    work: ContinuationWork,
    answer: { text: string; agent?: string; approval?: InitiatedAnswer["approval"] },
  ): Promise<boolean> {
    if (answer.text.trim() === "") return true;
    const outcome = await work.deliver({
      conversation: record.home.post,
      text: answer.text,
      ...(record.home.replyTo ? { replyTo: record.home.replyTo } : {}),
      recipientId: record.ownerId,
      ...(answer.agent ? { agent: answer.agent } : {}),
      ...(answer.approval ? { approval: answer.approval } : {}),
    });
    if (outcome.delivered) return true;
    await this.#pauseUndeliverable(record, outcome.failed);
    return false;
  }

  async #pauseUndeliverable(record: ScheduleRecord, failed: string): Promise<void> {
    const { store, clock, logger } = this.#options;
    logger.warn("a schedule's place could not be posted to; the schedule is paused", {
      scheduleId: record.id,
      key: record.home.key,
      error: failed,
    });
    await store.update(record.id, async (current) => {
      const change = changeSchedule(
        current,
        "pause",
        "switchboard",
        clock.now(),
        `its place could not be posted to: ${failed}`,
      );
      return "record" in change ? { record: change.record, result: undefined } : { result: undefined };
    });
  }

  async #finish(record: ScheduleRecord, dueAt: number, outcome: FireOutcome): Promise<void> {
    await this.#record(record, dueAt, outcome);
    this.#options.observer?.finished?.(record, outcome);
  }

  async #record(
    record: ScheduleRecord,
    dueAt: number,
    outcome: FireOutcome,
    ids: { requestId?: string; runId?: string } = {},
  ): Promise<void> {
    const { store, clock } = this.#options;
    await store.finishFire(record.id, dueAt, { outcome, finishedAt: clock.now(), ...ids });
  }
}
