import { randomBytes } from "node:crypto";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { RunIdentity, RunStatus, RunSummary, StepDetail } from "./run-step.ts";
import type { RunStepsLog } from "./run-steps-log.ts";
import type { RunSteps } from "./step-sink.ts";

/** Hears every step as it is recorded: usage roll-ups, metrics, log lines. Must not throw. */
export interface StepListener {
  onStep?(run: RunIdentity, step: StepDetail): void;
  onRunFinished?(summary: RunSummary): void;
}

export interface StepRecorderOptions {
  readonly log: RunStepsLog;
  readonly clock: Clock;
  readonly logger: Logger;
  /** USD of one model call, or undefined when its model has no price. */
  readonly costOf?: (step: {
    model: string;
    inputTokens: number;
    outputTokens: number;
    cachedTokens: number;
  }) => number | undefined;
  readonly listeners?: readonly StepListener[];
}

/** What the team's run hook passes: the run's ids as request tracking gave them. */
export interface TeamRunContext {
  readonly key: string;
  readonly userId: string;
  readonly requestId?: string;
  readonly runId?: string;
  readonly trigger?: string;
  /** The run was started before (a crash, a later try): its recorded totals go on growing. */
  readonly resumed?: boolean;
}

/**
 * One run being recorded. Its graph runs carry it in their configurable (`RUN_STEPS_KEY`), where
 * their model and tool calls report to it; whoever ran it says when it ended (`finish`, once).
 */
export interface RunRecording extends RunSteps {
  readonly run: RunIdentity;
}

/**
 * Records what runs do into the run-steps log, from the hooks the rest of the runtime offers:
 * the team's, tasks' and memory's model and tool calls (step-sink.ts), commands, delivery.
 * Recording never fails or slows a turn: writes are queued in order and a failed write is logged.
 */
export class StepRecorder {
  readonly #options: StepRecorderOptions;
  /** The latest run per conversation in this process: where a delivery that follows it belongs. */
  readonly #latest = new Map<string, RunIdentity>();
  readonly #writes = new Set<Promise<unknown>>();

  constructor(options: StepRecorderOptions) {
    this.#options = options;
  }

  get log(): RunStepsLog {
    return this.#options.log;
  }

  /** Records one team run (the Team's `stepsFor` hook); the team finishes it when its graph ends. */
  teamRun(context: TeamRunContext): RunRecording {
    return this.begin(
      {
        runId: context.runId ?? newRunId(),
        conversationKey: context.key,
        userId: context.userId,
        ...(context.requestId ? { requestId: context.requestId } : {}),
        trigger: context.trigger ?? "user_message",
      },
      { resume: context.resumed === true },
    );
  }

  /** Starts recording a run (that started at `at`, default now); `finish` closes it. */
  begin(run: RunIdentity, options: { resume?: boolean; at?: number } = {}): RunRecording {
    this.#latest.delete(run.conversationKey);
    this.#latest.set(run.conversationKey, run);
    if (this.#latest.size > 10_000) this.#latest.delete(this.#latest.keys().next().value ?? "");
    const at = options.at ?? this.#options.clock.now();
    // A resumed run (a task's next step) adds to the totals it has, wherever they were recorded.
    this.#write(() =>
      options.resume ? this.#options.log.resumeRun(run, at) : this.#options.log.startRun(run, at),
    );
    let finished = false;
    const finish = (status: Exclude<RunStatus, "running">, error?: string) => {
      if (finished) return;
      finished = true;
      this.#write(async () => {
        const summary = await this.#options.log.finishRun(run.runId, status, {
          at: this.#options.clock.now(),
          ...(error ? { error } : {}),
        });
        if (summary) for (const listener of this.#options.listeners ?? []) listener.onRunFinished?.(summary);
      });
    };
    const clock = this.#options.clock;
    return { run, now: () => clock.now(), step: (detail) => this.record(run, detail), finish };
  }

  /** Appends a step to `run` (model calls get their cost first) and tells the listeners. */
  record(run: RunIdentity, detail: StepDetail): void {
    const priced =
      detail.kind === "model_call" && detail.costUsd === undefined
        ? withCost(detail, this.#options.costOf)
        : detail;
    for (const listener of this.#options.listeners ?? []) {
      try {
        listener.onStep?.(run, priced);
      } catch (error) {
        this.#options.logger.warn("a step listener failed", { runId: run.runId, error });
      }
    }
    this.#write(() => this.#options.log.record(run.runId, priced, this.#options.clock.now()));
  }

  /** A delivery belongs to the conversation's latest run in this process (the one that answered). */
  recordDelivery(conversationKey: string, detail: StepDetail): void {
    const run = this.#latest.get(conversationKey);
    if (run) this.record(run, detail);
  }

  /** Resolves when every write started so far has finished. */
  async flushed(): Promise<void> {
    while (this.#writes.size > 0) await Promise.allSettled([...this.#writes]);
    await this.#options.log.flushed();
  }

  #write(work: () => Promise<unknown>): void {
    const pending = work().catch((error: unknown) =>
      this.#options.logger.warn("could not record a run step", { error }),
    );
    this.#writes.add(pending);
    void pending.finally(() => this.#writes.delete(pending));
  }
}

function withCost(
  detail: Extract<StepDetail, { kind: "model_call" }>,
  costOf: StepRecorderOptions["costOf"],
) {
  const cost = costOf?.(detail);
  return cost === undefined ? detail : { ...detail, costUsd: cost };
}

export function newRunId(): string {
  return `run-${randomBytes(6).toString("hex")}`;
}
