import type { ConversationRef } from "../conversation/ref.ts";

/**
 * queued: waiting for its first step. running: taking steps. waiting: a step failed for a reason
 * that passes (the model unavailable) and is tried again at `retryAt`. paused: by a person, until
 * resumed. completed / failed / cancelled: ended for good (terminal: nothing changes them again).
 */
export type TaskStatus = "queued" | "running" | "paused" | "waiting" | "completed" | "failed" | "cancelled";

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);
export const TASK_STATUSES: readonly TaskStatus[] = [
  "queued",
  "running",
  "waiting",
  "paused",
  "completed",
  "failed",
  "cancelled",
];

export const isTerminal = (status: TaskStatus) => TERMINAL_STATUSES.has(status);

/** Where a task came from and where its result goes. */
export interface TaskHome {
  /** The conversation key of the thread that asked (lock, queue and delivery target of the result). */
  readonly key: string;
  readonly conversation: ConversationRef;
  /** The message whose request started the task: the result answers it. */
  readonly messageId: string;
}

/** A background task: an agent's autonomous work, its own LangGraph thread, its result sent home. */
export interface TaskRecord {
  /** Short and typeable (`T-7KQ2MD`), derived from the run and tool call that started it. */
  readonly id: string;
  readonly title: string;
  readonly instructions: string;
  /** Tool names the task may call. */
  readonly tools: readonly string[];
  /** The agent that started it; the task speaks with its model and name. */
  readonly agent: string;
  readonly home: TaskHome;
  /** The person whose message started it: may steer it, and is charged for it. */
  readonly requesterId: string;
  /** The request the starting message opened; the task is one of its runs. */
  readonly requestId?: string;
  /** The run whose tool call started it. */
  readonly parentRunId?: string;
  /** This task's own run: in the request record and the run-steps log (tokens, cost). */
  readonly runId: string;
  readonly status: TaskStatus;
  /** Steps finished. The next step is `iteration + 1`. */
  readonly iteration: number;
  readonly maxIterations: number;
  readonly wallTimeMs: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly startedAt?: number;
  readonly finishedAt?: number;
  /** Running time of earlier stretches (a pause ends a stretch). */
  readonly activeMs: number;
  /** Start of the current running stretch, while not paused. */
  readonly runningSince?: number;
  /** When the last step finished (or the first began): the health check's measure of progress. */
  readonly lastProgressAt?: number;
  readonly pausedAt?: number;
  /** waiting: when the next attempt may start. */
  readonly retryAt?: number;
  /** Guidance taken from people, given to the task in its next step. */
  readonly pendingGuidance: readonly Guidance[];
  /**
   * The step being taken (set before it starts, cleared when its result is in the record): after a
   * crash, only a task with this mark can have a checkpoint ahead of its record.
   */
  readonly stepInFlight?: number;
  /** Steps in a row that found the model unavailable (the task waits longer after each). */
  readonly consecutiveWaits: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** USD of the steps whose model has a price. */
  readonly costUsd: number;
  /** Steps whose model has no price: their cost is unknown, not zero (absent: none). */
  readonly unpricedSteps?: number;
  /** completed: the task's answer. failed: the last text it wrote, if any. */
  readonly result?: string;
  /** Why it failed, was cancelled, or is waiting, in words a user can read. */
  readonly lastError?: string;
  /** Who paused or cancelled it, when a person did. */
  readonly changedBy?: string;
  /**
   * Its ending has been queued for its home thread (exactly once: the queue's dedupe). A cancel a
   * person asked for and was told about needs no report.
   */
  readonly reported: boolean;
}

/** What a new task holds before its first step: queued, nothing done, nothing spent or reported. */
export function notStarted(): Pick<
  TaskRecord,
  | "status"
  | "iteration"
  | "activeMs"
  | "pendingGuidance"
  | "consecutiveWaits"
  | "inputTokens"
  | "outputTokens"
  | "costUsd"
  | "reported"
> {
  return {
    status: "queued",
    iteration: 0,
    activeMs: 0,
    pendingGuidance: [],
    consecutiveWaits: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    reported: false,
  };
}

export interface Guidance {
  readonly by: string;
  readonly text: string;
  readonly at: number;
}

/** What people (and the health check) ask of a task; applied by whoever holds its lease. */
export type TaskControl =
  | { readonly action: "pause"; readonly by: string; readonly at: number }
  | { readonly action: "resume"; readonly by: string; readonly at: number }
  | { readonly action: "cancel"; readonly by: string; readonly at: number }
  | { readonly action: "steer"; readonly by: string; readonly at: number; readonly guidance: string }
  /** The health check: the task made no progress for too long, or stayed paused too long. */
  | { readonly action: "fail"; readonly by: string; readonly at: number; readonly reason: string }
  | { readonly action: "expire"; readonly by: string; readonly at: number; readonly reason: string };

/** Controls that end the step running now (the lease's heartbeat aborts it). */
export const STOPPING_ACTIONS: ReadonlySet<TaskControl["action"]> = new Set([
  "pause",
  "cancel",
  "fail",
  "expire",
]);

/** The outcome of applying one control: the new record, or why it does not apply (a sentence). */
export type ControlOutcome = { readonly record: TaskRecord } | { readonly refused: string };

/** Running time so far, pauses not counted. */
export function usedMs(record: TaskRecord, now: number): number {
  return record.activeMs + (record.runningSince === undefined ? 0 : Math.max(0, now - record.runningSince));
}

/**
 * One control applied to a record: the task's whole life in one pure table. Terminal records never
 * change (no "completed" after "cancelled"); a control that does not fit the status is refused with
 * the sentence its sender reads.
 */
export function applyControl(record: TaskRecord, control: TaskControl, now: number): ControlOutcome {
  const { id } = record;
  if (isTerminal(record.status)) return { refused: `Task ${id} has already ${endedVerb(record.status)}.` };
  switch (control.action) {
    case "pause":
      if (record.status === "paused") return { refused: `Task ${id} is already paused.` };
      return {
        record: {
          ...stretchEnded(record, now),
          status: "paused",
          pausedAt: now,
          changedBy: control.by,
          updatedAt: now,
        },
      };
    case "resume": {
      if (record.status !== "paused")
        return { refused: `Task ${id} is not paused (it is ${record.status}).` };
      const { pausedAt: _pausedAt, ...rest } = record;
      return {
        record: {
          ...rest,
          status: record.iteration === 0 ? "queued" : "running",
          runningSince: now,
          lastProgressAt: now,
          changedBy: control.by,
          updatedAt: now,
        },
      };
    }
    case "steer":
      return {
        record: {
          ...record,
          pendingGuidance: [
            ...record.pendingGuidance,
            { by: control.by, text: control.guidance, at: control.at },
          ],
          updatedAt: now,
        },
      };
    case "cancel":
      return {
        record: ended(record, "cancelled", now, {
          changedBy: control.by,
          lastError: `cancelled by ${control.by}`,
        }),
      };
    case "fail":
      return { record: ended(record, "failed", now, { lastError: control.reason }) };
    case "expire":
      return { record: ended(record, "cancelled", now, { lastError: control.reason }) };
  }
}

/** The next step begins: queued and waiting tasks are running from now. */
export function stepStarting(record: TaskRecord, now: number): TaskRecord {
  if (record.status === "running") return record;
  const { retryAt: _retryAt, ...rest } = record;
  return {
    ...rest,
    status: "running",
    startedAt: record.startedAt ?? now,
    runningSince: record.runningSince ?? now,
    lastProgressAt: record.lastProgressAt ?? now,
    updatedAt: now,
  };
}

/** A step failed for a passing reason: tried again at `retryAt`; the time waiting does not count. */
export function waitingUntil(record: TaskRecord, retryAt: number, reason: string, now: number): TaskRecord {
  return { ...stretchEnded(record, now), status: "waiting", retryAt, lastError: reason, updatedAt: now };
}

/** Ends a task for good (completed, failed, cancelled); its result is reported unless `reported`. */
export function ended(
  record: TaskRecord,
  status: "completed" | "failed" | "cancelled",
  now: number,
  changes: Partial<Pick<TaskRecord, "result" | "lastError" | "changedBy" | "reported">> = {},
): TaskRecord {
  const {
    runningSince: _runningSince,
    retryAt: _retryAt,
    pausedAt: _pausedAt,
    ...rest
  } = stretchEnded(record, now);
  return { ...rest, status, finishedAt: now, updatedAt: now, reported: false, ...changes };
}

function stretchEnded(record: TaskRecord, now: number): TaskRecord {
  const { runningSince: _runningSince, ...rest } = record;
  return { ...rest, activeMs: usedMs(record, now) };
}

function endedVerb(status: TaskStatus): string {
  return status === "completed" ? "completed" : status === "cancelled" ? "been cancelled" : "failed";
}
