import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { LockHeartbeat, lockWasLost } from "../engine/lock-heartbeat.ts";
import { ModelUnavailableError } from "../models/retry.ts";
import type { Clock } from "../runtime/clock.ts";
import { abortedByShutdown, SHUTDOWN_REASON, userMessageOf } from "../runtime/errors.ts";
import type { Logger } from "../runtime/logger.ts";
import type { TokenCounts } from "../steps/run-step.ts";
import { RUN_STEPS_KEY, type RunSteps } from "../steps/step-sink.ts";
import type { AtomicStore } from "../store/types.ts";
import type { RunJournal } from "../team/run-journal.ts";
import {
  STEP_CONTEXT_KEY,
  type StepContext,
  type StepSummary,
  shorten,
  type TaskGraph,
  type TaskStateValue,
} from "./task-graph.ts";
import { taskSystemPrompt } from "./task-prompt.ts";
import {
  applyControl,
  ended,
  isTerminal,
  STOPPING_ACTIONS,
  stepStarting,
  type TaskRecord,
  usedMs,
  waitingUntil,
} from "./task-record.ts";
import type { TaskStepEntry, TaskStore } from "./task-store.ts";

/** What a step run left: another step is due now, nothing is due here now, or another process holds the task. */
export type StepOutcome = "stepped" | "idle" | "locked";

/** The checkpoint thread of a task (never a conversation key: those start with a platform). */
export const taskThreadId = (taskId: string) => `task:${taskId}`;

/** Hears what tasks do (metrics). Must not throw. */
export interface TaskObserver {
  stepFinished?(record: TaskRecord, entry: TaskStepEntry): void;
  ended?(record: TaskRecord): void;
}

export interface TaskRunnerOptions {
  readonly store: TaskStore;
  readonly atomic: AtomicStore;
  readonly graph: TaskGraph;
  readonly journal: RunJournal;
  /** The model an agent of the team speaks with; undefined for an agent the team no longer has. */
  readonly modelOf: (agent: string) => BaseChatModel | undefined;
  /** A tool of the registry by name; undefined when it is gone (an MCP server removed…). */
  readonly toolOf: (name: string) => StructuredToolInterface | undefined;
  readonly callModel: StepContext["callModel"];
  /** Queues a task's ending for its home thread (exactly once: deduplicated by task). */
  readonly report: (record: TaskRecord) => Promise<void>;
  /** Where a step's model and tool calls are recorded: the task's run, finished when the task ends; absent: not recorded. */
  readonly recording?: (record: TaskRecord) => Promise<RunSteps>;
  /** USD of a step's tokens for the agent's model; undefined when it has no price. */
  readonly costOf?: (agent: string, tokens: TokenCounts) => number | undefined;
  /** The sentence that refuses the next step when the requester or thread is over a usage cap. */
  readonly refusal?: (record: TaskRecord) => Promise<string | undefined>;
  readonly observer?: TaskObserver;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The task's lease: renewed every third of it while a step runs; a dead runner's lapses within it. */
  readonly leaseTtlMs: number;
  /** How long a task waits after the model stayed unavailable through every attempt of a step. */
  readonly retryDelayMs: number;
  /** Steps in a row that may end unavailable before the task fails. */
  readonly maxWaits: number;
}

/**
 * Runs one step of one task under the task's lease: applies what people asked (pause, resume,
 * cancel, steer), checks limits, takes the step, writes its log entry and the record, and queues
 * the ending for the home thread when the task ends. Whoever drives tasks (this process's loop, a
 * cluster's jobs) calls `runStep` again while it answers "stepped".
 *
 * Crash safety: a step's messages and summary are checkpointed together when it ends; a record
 * still at the previous iteration finds the checkpoint ahead and finishes the bookkeeping without
 * running the step again. A step cut short re-runs from the last checkpoint, its model reply and
 * tool results replayed from the run journal (no tool runs twice).
 */
export class TaskRunner {
  readonly #options: TaskRunnerOptions;

  constructor(options: TaskRunnerOptions) {
    this.#options = options;
  }

  async runStep(taskId: string, shutdown?: AbortSignal): Promise<StepOutcome> {
    const { atomic, leaseTtlMs, logger } = this.#options;
    const lockKey = leaseKey(taskId);
    const token = await atomic.acquireLock(lockKey, leaseTtlMs);
    if (!token) return "locked";
    const controller = new AbortController();
    const onShutdown = () => controller.abort(new Error(SHUTDOWN_REASON));
    if (shutdown?.aborted) onShutdown();
    shutdown?.addEventListener("abort", onShutdown, { once: true });
    const heartbeat = new LockHeartbeat({
      atomic,
      lockKey,
      token,
      ttlMs: leaseTtlMs,
      onLost: () => logger.error("lost a task's lease mid-step; the step is abandoned", { taskId }),
      stopRequested: () => this.#stopWaiting(taskId),
      onError: (error) => logger.warn("task lease renewal failed", { taskId, error }),
    });
    heartbeat.attach(controller);
    try {
      return await this.#stepHolding(taskId, controller.signal);
    } finally {
      heartbeat.stop();
      shutdown?.removeEventListener("abort", onShutdown);
      await atomic.releaseLock(lockKey, token).catch(() => false);
    }
  }

  /** Applies waiting controls now when no step holds the task (a paused or queued one); false when one does. */
  async applyControlsNow(taskId: string): Promise<TaskRecord | false> {
    const { atomic, leaseTtlMs, store } = this.#options;
    const token = await atomic.acquireLock(leaseKey(taskId), leaseTtlMs);
    if (!token) return false;
    try {
      const record = await store.get(taskId);
      if (!record) return false;
      return await this.#applyControls(record);
    } finally {
      await atomic.releaseLock(leaseKey(taskId), token).catch(() => false);
    }
  }

  async #stopWaiting(taskId: string): Promise<boolean> {
    const controls = await this.#options.store.pendingControls(taskId);
    return controls.some(({ control }) => STOPPING_ACTIONS.has(control.action));
  }

  async #stepHolding(taskId: string, signal: AbortSignal): Promise<StepOutcome> {
    const { store, clock } = this.#options;
    let record = await store.get(taskId);
    if (!record) return "idle";
    // A step that started and never reached the record may have been checkpointed before a crash:
    // then its bookkeeping is finished from the checkpoint, and the step is not taken again. Only
    // then is the checkpoint read here; a step that ended normally cleared the mark.
    if (!isTerminal(record.status) && record.stepInFlight === record.iteration + 1) {
      const state = await this.#state(taskId);
      if (state.lastStep && state.iteration > record.iteration)
        record = await this.#afterStep(record, state.lastStep);
    }
    record = await this.#applyControls(record);
    if (isTerminal(record.status)) {
      if (!record.reported) await this.#report(record);
      return "idle";
    }
    if (record.status === "paused") return "idle";
    const now = clock.now();
    if (record.status === "waiting" && (record.retryAt ?? 0) > now) return "idle";
    const stop = await this.#limitReached(record, now);
    if (stop) {
      await this.#end(record, "failed", { lastError: stop, ...lastWords(await this.#state(taskId)) });
      return "idle";
    }
    const started: TaskRecord = { ...stepStarting(record, now), stepInFlight: record.iteration + 1 };
    await store.save(started, record);
    return this.#takeStep(started, signal);
  }

  async #takeStep(record: TaskRecord, signal: AbortSignal): Promise<StepOutcome> {
    const { graph, logger, store } = this.#options;
    let context: StepContext;
    try {
      context = this.#contextFor(record);
    } catch (error) {
      await this.#end(record, "failed", {
        lastError: error instanceof Error ? error.message : String(error),
      });
      return "idle";
    }
    const recording = await this.#options.recording?.(record);
    const guidance = record.pendingGuidance.map((g) => `Guidance from ${g.by}: ${g.text}`);
    const first = record.iteration === 0 ? [new HumanMessage(record.instructions)] : [];
    try {
      const values = (await graph.invoke(
        { messages: [...first, ...guidance.map((text) => new HumanMessage(text))], guidance },
        {
          configurable: {
            thread_id: taskThreadId(record.id),
            [STEP_CONTEXT_KEY]: context,
            ...(recording ? { [RUN_STEPS_KEY]: recording } : {}),
          },
          signal,
          durability: "exit",
        },
      )) as TaskStateValue;
      if (!values.lastStep) throw new Error("the task step ended without a summary");
      const after = await this.#afterStep(record, values.lastStep);
      if (isTerminal(after.status))
        recording?.finish(after.status === "completed" ? "completed" : "failed", after.lastError);
      return isTerminal(after.status) ? "idle" : "stepped";
    } catch (error) {
      if (lockWasLost(signal) || abortedByShutdown(signal)) return "idle";
      const current = (await store.get(record.id)) ?? record;
      if (signal.aborted) {
        // A pause, cancel or health check ended the step: applied now, the step's work is dropped
        // (its checkpoint was not written; recorded tool calls are kept for when it runs again).
        const applied = await this.#applyControls(current);
        if (isTerminal(applied.status))
          recording?.finish(applied.status === "cancelled" ? "cancelled" : "failed");
        return "idle";
      }
      if (error instanceof ModelUnavailableError && current.consecutiveWaits + 1 < this.#options.maxWaits) {
        // A durable wait written into the task's record (any process resumes it after a restart),
        // not an in-process loop, so not retryWithBackoff.
        const retryAt =
          this.#options.clock.now() + this.#options.retryDelayMs * 2 ** current.consecutiveWaits;
        const waiting = {
          ...waitingUntil(current, retryAt, error.userMessage, this.#options.clock.now()),
          consecutiveWaits: current.consecutiveWaits + 1,
        };
        await store.save(waiting, current);
        logger.warn("task step failed: the model is unavailable; trying again later", {
          taskId: record.id,
          retryAt,
        });
        return "idle";
      }
      logger.error("task step failed; the task ends", { taskId: record.id, error });
      const sentence = userMessageOf(error) ?? (error instanceof Error ? error.message : String(error));
      await this.#end(current, "failed", { lastError: sentence });
      recording?.finish("failed", sentence);
      return "idle";
    }
  }

  /** The step's log entry, then the record (iteration, totals; ended when the model answered). */
  async #afterStep(record: TaskRecord, step: StepSummary): Promise<TaskRecord> {
    const { clock, costOf, store } = this.#options;
    const now = clock.now();
    // No price is an unknown cost, counted as such: never a guess, never shown as free.
    const priced = costOf?.(record.agent, step);
    const cost = priced ?? 0;
    const unpriced = costOf !== undefined && priced === undefined;
    // A final answer with guidance still waiting is not final: the task hears the guidance first.
    const final = step.final && !(await this.#guidanceWaiting(record.id));
    const entry: TaskStepEntry = {
      iteration: step.iteration,
      stepToken: `${record.id}:${step.iteration}`,
      nextStepToken: final ? null : `${record.id}:${step.iteration + 1}`,
      text: shorten(step.text, 1_000),
      toolCalls: step.toolCalls,
      guidance: step.guidance,
      inputTokens: step.inputTokens,
      outputTokens: step.outputTokens,
      costUsd: cost,
      ...(unpriced ? { unpriced: true as const } : {}),
      latencyMs: step.latencyMs,
      at: now,
    };
    await store.writeStep(record.id, entry);
    const { stepInFlight: _done, ...rest } = record;
    const stepped: TaskRecord = {
      ...rest,
      iteration: step.iteration,
      lastProgressAt: now,
      pendingGuidance: [],
      consecutiveWaits: 0,
      inputTokens: record.inputTokens + step.inputTokens,
      outputTokens: record.outputTokens + step.outputTokens,
      costUsd: record.costUsd + cost,
      ...(unpriced || record.unpricedSteps
        ? { unpricedSteps: (record.unpricedSteps ?? 0) + (unpriced ? 1 : 0) }
        : {}),
      updatedAt: now,
    };
    this.#options.observer?.stepFinished?.(stepped, entry);
    if (!final) {
      await store.save(stepped, record);
      return stepped;
    }
    return this.#end(stepped, "completed", { result: step.text }, record);
  }

  async #guidanceWaiting(taskId: string): Promise<boolean> {
    const controls = await this.#options.store.pendingControls(taskId);
    return controls.some(({ control }) => control.action === "steer");
  }

  /** Applies the task's queued controls in order, writes the record once, then takes them off the queue. */
  async #applyControls(record: TaskRecord): Promise<TaskRecord> {
    const { store, clock, logger } = this.#options;
    const pending = await store.pendingControls(record.id);
    if (pending.length === 0) return record;
    let current = record;
    for (const { control } of pending) {
      const outcome = applyControl(current, control, clock.now());
      if ("refused" in outcome)
        logger.info("task control no longer applies", {
          taskId: record.id,
          action: control.action,
          reason: outcome.refused,
        });
      else current = outcome.record;
    }
    if (current !== record) await store.save(current, record);
    await store.ackControls(
      record.id,
      pending.map(({ entry }) => entry),
    );
    if (isTerminal(current.status) && !isTerminal(record.status)) await this.#ended(current);
    return current;
  }

  async #end(
    record: TaskRecord,
    status: "completed" | "failed",
    changes: Partial<Pick<TaskRecord, "result" | "lastError">>,
    previous: TaskRecord = record,
  ): Promise<TaskRecord> {
    const done = ended(record, status, this.#options.clock.now(), changes);
    await this.#options.store.save(done, previous);
    await this.#ended(done);
    return done;
  }

  async #ended(record: TaskRecord): Promise<void> {
    this.#options.logger.info("task ended", {
      taskId: record.id,
      status: record.status,
      steps: record.iteration,
    });
    this.#options.observer?.ended?.(record);
    await this.#report(record);
  }

  /** Queues the ending for the home thread, then marks it queued (the sweep repeats what a crash cut). */
  async #report(record: TaskRecord): Promise<void> {
    await this.#options.report(record);
    const latest = (await this.#options.store.get(record.id)) ?? record;
    if (!latest.reported) await this.#options.store.save({ ...latest, reported: true }, latest);
  }

  async #limitReached(record: TaskRecord, now: number): Promise<string | undefined> {
    if (record.iteration >= record.maxIterations)
      return `it reached its step limit (${record.maxIterations} steps) without finishing`;
    if (usedMs(record, now) >= record.wallTimeMs)
      return `it ran out of time (${Math.round(record.wallTimeMs / 60_000)} minutes) without finishing`;
    const refused = await this.#options.refusal?.(record);
    return refused ? `it was stopped by a usage limit: ${refused}` : undefined;
  }

  #contextFor(record: TaskRecord): StepContext {
    const model = this.#options.modelOf(record.agent);
    if (!model) throw new Error(`its agent ${record.agent} is no longer in the team`);
    const tools = record.tools.map((name) => {
      const tool = this.#options.toolOf(name);
      if (!tool) throw new Error(`its tool ${name} is no longer available`);
      return tool;
    });
    return {
      agent: record.agent,
      system: taskSystemPrompt(record),
      model,
      tools,
      journal: this.#options.journal,
      stepRunId: `${record.runId}:${record.iteration + 1}`,
      callModel: this.#options.callModel,
      now: () => this.#options.clock.now(),
    };
  }

  async #state(taskId: string): Promise<TaskStateValue> {
    const snapshot = await this.#options.graph.getState({
      configurable: { thread_id: taskThreadId(taskId) },
    });
    const values = snapshot.values as Partial<TaskStateValue>;
    return {
      messages: values.messages ?? [],
      iteration: values.iteration ?? 0,
      lastStep: values.lastStep ?? null,
      guidance: values.guidance ?? [],
    };
  }
}

export const leaseKey = (taskId: string) => `task-lease:${taskId}`;

/** The last thing a task wrote, kept as its partial result when it stops short. */
function lastWords(state: TaskStateValue): Pick<TaskRecord, "result"> | Record<string, never> {
  const text = state.lastStep?.text.trim();
  return text ? { result: text } : {};
}
