import type { Clock } from "../runtime/clock.ts";
import { applyControl, type TaskControl, type TaskRecord } from "./task-record.ts";
import type { TaskRunner } from "./task-runner.ts";
import { normalizeTaskId } from "./task-starter.ts";
import type { TaskStore } from "./task-store.ts";

export type ControlAction = "pause" | "resume" | "cancel" | "steer";

/** Who asks: a platform user id, or the operator console (an admin everywhere). */
export interface Controller {
  readonly id: string;
  readonly admin?: boolean;
}

export interface TaskControlsOptions {
  readonly store: TaskStore;
  readonly runner: TaskRunner;
  /** Platform user ids who may control anyone's task. */
  readonly admins: readonly string[];
  readonly clock: Clock;
  /** A task can take steps again (resumed): its driver takes it. */
  readonly resumed: (record: TaskRecord) => void;
}

/** The answer a person reads, and the record as it is now (when the task exists). */
export interface ControlResult {
  readonly sentence: string;
  readonly record?: TaskRecord;
}

/**
 * Pause, resume, cancel and steer, for the people a task belongs to. A control is queued for the
 * task (durable) and applied at once when no step is running — otherwise the running step's lease
 * heartbeat ends it (pause, cancel) or its next step hears it (steer), within one heartbeat.
 */
export class TaskControls {
  readonly #options: TaskControlsOptions;

  constructor(options: TaskControlsOptions) {
    this.#options = options;
  }

  async control(
    idText: string,
    action: ControlAction,
    by: Controller,
    guidance = "",
    prefix = "/",
  ): Promise<ControlResult> {
    const { store, runner, clock } = this.#options;
    const id = normalizeTaskId(idText);
    const record = await store.get(id);
    if (!record) return { sentence: `There is no task ${id}. ${prefix}tasks lists this thread's tasks.` };
    if (!this.mayControl(record, by))
      return {
        sentence: `Only the person who asked for task ${id} or an admin can ${action} it.`,
        record,
      };
    if (action === "steer" && guidance.trim() === "")
      return {
        sentence: `Say what task ${id} should do differently: ${prefix}task steer ${id} <guidance>.`,
        record,
      };
    const control = controlOf(action, by.id, clock.now(), guidance.trim());
    const check = applyControl(record, control, clock.now());
    if ("refused" in check) return { sentence: check.refused, record };
    await store.submitControl(id, control);
    const applied = await runner.applyControlsNow(id);
    if (applied === false) return { sentence: deferredSentence(record, action), record };
    if (action === "resume") this.#options.resumed(applied);
    return { sentence: appliedSentence(applied, action, prefix), record: applied };
  }

  mayControl(record: TaskRecord, by: Controller): boolean {
    return by.admin === true || by.id === record.requesterId || this.#options.admins.includes(by.id);
  }
}

function controlOf(action: ControlAction, by: string, at: number, guidance: string): TaskControl {
  return action === "steer" ? { action, by, at, guidance } : { action, by, at };
}

function deferredSentence(record: TaskRecord, action: ControlAction): string {
  switch (action) {
    case "pause":
      return `Pausing task ${record.id}: its current step stops now.`;
    case "cancel":
      return `Cancelling task ${record.id}: its current step stops now.`;
    case "steer":
      return `Task ${record.id} will take that into account from its next step.`;
    case "resume":
      return `Resuming task ${record.id}.`;
  }
}

function appliedSentence(record: TaskRecord, action: ControlAction, prefix: string): string {
  const where = `(step ${record.iteration} of at most ${record.maxIterations})`;
  switch (action) {
    case "pause":
      return `Paused task ${record.id} ${where}. ${prefix}task resume ${record.id} continues it.`;
    case "cancel":
      return `Cancelled task ${record.id} ${where}.`;
    case "steer":
      return `Task ${record.id} will take that into account from its next step.`;
    case "resume":
      return `Resumed task ${record.id} ${where}.`;
  }
}
