import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { Command } from "../commands/command.ts";
import type { Deliverer } from "../delivery/deliverer.ts";
import type { Continuation, ContinuationHandler, ContinuationWork } from "../engine/responder.ts";
import { invokeWithRetry } from "../models/retry.ts";
import { DEFAULT_MODEL_CALL_POLICY, type ModelCallPolicy } from "../models/spec.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { TokenCounts } from "../steps/run-step.ts";
import type { RunSteps } from "../steps/step-sink.ts";
import type { Store } from "../store/types.ts";
import { RunJournal } from "../team/run-journal.ts";
import { describeTask, taskCommands } from "./task-commands.ts";
import { TaskControls } from "./task-controls.ts";
import { TaskDriver, type TaskScheduler } from "./task-driver.ts";
import { buildTaskGraph } from "./task-graph.ts";
import { TaskHealth, type TaskHealthReport } from "./task-health.ts";
import { TaskProgress } from "./task-progress.ts";
import { isTerminal, type TaskRecord } from "./task-record.ts";
import { TASK_ENDED, type TaskHomeHooks, TaskResults } from "./task-results.ts";
import { type StepOutcome, type TaskObserver, TaskRunner, taskThreadId } from "./task-runner.ts";
import { type TaskRequests, TaskStarter } from "./task-starter.ts";
import { TaskStore } from "./task-store.ts";
import type { TasksConfig } from "./tasks-config.ts";

export interface CreateTasksOptions {
  readonly store: Store;
  /** Tasks checkpoint their own threads (`task:<id>`) here, beside the conversations. */
  readonly checkpointer: BaseCheckpointSaver;
  readonly config: TasksConfig;
  /** Every agent of the team, with its model and the tools it names. */
  readonly agents: readonly {
    readonly name: string;
    readonly model: BaseChatModel;
    readonly tools: readonly string[];
  }[];
  /** The tool registry (by name), as the team's agents see it. */
  readonly toolOf: (name: string) => StructuredToolInterface | undefined;
  /** Where a task's run and ending are recorded; absent: no request tracking. */
  readonly requests?: TaskRequests;
  /** The home thread's history, for the ending (the team's `appendToHistory`). */
  readonly appendToHistory: TaskHomeHooks["appendToHistory"];
  readonly modelCalls?: ModelCallPolicy;
  readonly recording?: (record: TaskRecord) => Promise<RunSteps>;
  readonly costOf?: (agent: string, tokens: TokenCounts) => number | undefined;
  readonly refusal?: (record: TaskRecord) => Promise<string | undefined>;
  readonly observers?: readonly TaskObserver[];
  /** Platform user ids who may control anyone's task. */
  readonly admins: readonly string[];
  /** The tasks' lease (the engine's lock TTL fits). */
  readonly leaseTtlMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How often this process's health round runs (role `all`). Default 15 s. */
  readonly healthIntervalMs?: number;
  /** How often this process reads the due index when nothing announced a task. Default 1 s. */
  readonly pollMs?: number;
}

/** What queues a task's ending in its home thread, and posts its progress: the engine. */
export interface ContinuationQueue {
  enqueueContinuation(key: string, continuation: Continuation): Promise<boolean>;
  /** Progress messages (`tasks.progress: milestones`); absent: none are shown. */
  readonly deliverer?: Deliverer;
}

/** Background tasks wired in one place: give `toolsFor` to the team, `commands` and `continuations` to the engine, then `bind(engine)`. */
export interface Tasks {
  readonly config: TasksConfig;
  readonly store: TaskStore;
  readonly controls: TaskControls;
  /** `start_task` for the agents config allows (none when tasks are off). */
  toolsFor(agent: string): StructuredToolInterface[];
  readonly commands: readonly Command[];
  /** The engine's continuation handler: task endings here, everything else to `others`. */
  continuations(others: ContinuationHandler): ContinuationHandler;
  /** /status lines: the thread's unfinished tasks. */
  statusLines(key: string): Promise<string[]>;
  /** Connects to the engine that queues endings into home threads. */
  bind(queue: ContinuationQueue): void;
  /** Role `all`: runs task steps and health rounds in this process. */
  startDriving(): void;
  /** A cluster: steps run as jobs this scheduler queues; health rounds run once per cluster. */
  useScheduler(scheduler: TaskScheduler): void;
  /** A cluster's step job. */
  runStep(taskId: string, shutdown?: AbortSignal): Promise<StepOutcome>;
  healthRound(): Promise<TaskHealthReport>;
  /** How often health rounds run (this process's timer in role `all`; once per cluster otherwise). */
  readonly healthIntervalMs: number;
  /** Resolves when no step runs here and no task is due (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function createTasks(options: CreateTasksOptions): Tasks {
  const { config, clock, logger } = options;
  const store = new TaskStore(options.store, { retentionMs: config.retentionDays * 24 * 3_600_000 });
  const policy = options.modelCalls ?? DEFAULT_MODEL_CALL_POLICY;
  let queue: ContinuationQueue | undefined;
  let scheduler: TaskScheduler | undefined;
  const report = async (record: TaskRecord) => {
    if (!queue) throw new Error("tasks.bind(engine) was not called");
    await queue.enqueueContinuation(record.home.key, {
      // Queued once per task, however often a crash makes someone report it again.
      id: `task:${record.id}:ended`,
      requestId: record.requestId ?? record.id,
      type: TASK_ENDED,
      data: { taskId: record.id },
    });
  };
  const announce = (record: TaskRecord) => {
    scheduler
      ?.schedule(record.id)
      .catch((error: unknown) =>
        logger.warn("could not announce a task; the health round does", { taskId: record.id, error }),
      );
  };
  const models = new Map(options.agents.map((agent) => [agent.name, agent]));
  const runner = new TaskRunner({
    store,
    atomic: options.store.atomic,
    graph: buildTaskGraph(options.checkpointer),
    journal: new RunJournal(options.store),
    modelOf: (agent) => models.get(agent)?.model,
    toolOf: options.toolOf,
    callModel: (call, signal) =>
      invokeWithRetry((_attempt, attemptSignal, firstToken) => call(attemptSignal, firstToken), {
        maxAttempts: policy.maxAttempts,
        attemptTimeoutMs: policy.attemptTimeoutMs,
        firstTokenTimeoutMs: policy.firstTokenTimeoutMs,
        ...(signal ? { signal } : {}),
        onRetry: (event) =>
          logger.warn("task model call failed; retrying", {
            attempt: event.attempt,
            kind: event.kind,
            error: event.error,
          }),
      }),
    report,
    ...(options.recording ? { recording: options.recording } : {}),
    ...(options.costOf ? { costOf: options.costOf } : {}),
    ...(options.refusal ? { refusal: options.refusal } : {}),
    observer: everyObserver(
      [
        ...(options.observers ?? []),
        ...(config.progress === "milestones"
          ? [new TaskProgress({ store: options.store, deliverer: () => queue?.deliverer, clock, logger })]
          : []),
      ],
      logger,
    ),
    clock,
    logger,
    leaseTtlMs: options.leaseTtlMs,
    retryDelayMs: 60_000,
    maxWaits: 8,
  });
  const starter = new TaskStarter({
    store,
    config,
    agentTools: (agent) => models.get(agent)?.tools ?? [],
    ...(options.requests ? { requests: options.requests } : {}),
    clock,
    logger,
    started: announce,
  });
  const controls = new TaskControls({ store, runner, admins: options.admins, clock, resumed: announce });
  const results = new TaskResults(
    store,
    {
      appendToHistory: options.appendToHistory,
      finishRun: (record) => options.requests?.finishRun(record) ?? Promise.resolve(),
    },
    logger,
  );
  let driver: TaskDriver | undefined;
  let healthTimer: NodeJS.Timeout | undefined;
  let health: TaskHealth | undefined;
  const healthFor = (target: TaskScheduler) =>
    new TaskHealth({
      store,
      runner,
      atomic: options.store.atomic,
      scheduler: target,
      report,
      forgetThread: (taskId) => options.checkpointer.deleteThread(taskThreadId(taskId)),
      pausedExpiryMs: config.pausedExpiryHours * 3_600_000,
      retentionMs: config.retentionDays * 24 * 3_600_000,
      leaseTtlMs: options.leaseTtlMs,
      clock,
      logger,
    });
  const healthIntervalMs = options.healthIntervalMs ?? 15_000;
  const enabledFor = (agent: string) =>
    config.enabled && (config.agents.length === 0 || config.agents.includes(agent));
  return {
    config,
    store,
    controls,
    toolsFor: (agent) => (enabledFor(agent) ? [starter.toolFor(agent)] : []),
    commands: taskCommands({ store, controls, clock }),
    continuations(others) {
      return {
        continue: (work: ContinuationWork) =>
          work.continuation.type === TASK_ENDED ? results.deliver(work) : others.continue(work),
      };
    },
    async statusLines(key) {
      const open = (await store.inHome(key)).filter((task) => !isTerminal(task.status));
      if (open.length === 0) return [];
      const now = clock.now();
      return ["Background tasks:", ...open.map((task) => `- ${describeTask(task, now)}`)];
    },
    bind(target) {
      queue = target;
    },
    startDriving() {
      driver = new TaskDriver({
        store,
        runner,
        maxConcurrent: config.maxConcurrent,
        pollMs: options.pollMs ?? 1_000,
        clock,
        logger,
      });
      scheduler = driver;
      health = healthFor(driver);
      driver.start();
      const healthRound = () =>
        void health?.round().catch((error: unknown) => logger.warn("task health round failed", { error }));
      healthTimer = setInterval(healthRound, healthIntervalMs);
      healthTimer.unref?.();
      healthRound();
    },
    useScheduler(target) {
      scheduler = target;
      health = healthFor(target);
    },
    runStep: (taskId, shutdown) => runner.runStep(taskId, shutdown),
    healthIntervalMs,
    healthRound() {
      health ??= healthFor(scheduler ?? { schedule: async () => {} });
      return health.round();
    },
    async idle() {
      await driver?.idle();
    },
    async stop() {
      clearInterval(healthTimer);
      healthTimer = undefined;
      await driver?.stop();
    },
  };
}

/** One observer that tells each of them; one that throws is logged, never the task's problem. */
function everyObserver(observers: readonly TaskObserver[], logger: Logger): TaskObserver {
  const tell = (call: (observer: TaskObserver) => void) => {
    for (const observer of observers) {
      try {
        call(observer);
      } catch (error) {
        logger.warn("a task observer failed", { error });
      }
    }
  };
  return {
    stepFinished: (record, entry) => tell((observer) => observer.stepFinished?.(record, entry)),
    ended: (record) => tell((observer) => observer.ended?.(record)),
  };
}
