import type { ContinuationWork } from "../engine/responder.ts";
import type { Logger } from "../runtime/logger.ts";
import type { TaskRecord } from "./task-record.ts";
import type { TaskStore } from "./task-store.ts";

/** The continuation type that brings a task's ending into its home thread. */
export const TASK_ENDED = "task_ended";

/** Where a task's ending goes besides the thread: the history its agents read, and its request. */
export interface TaskHomeHooks {
  /** Adds the text to the home thread's history as the agent's message; the same id twice adds it once. */
  appendToHistory(key: string, message: { id: string; agent: string; text: string }): Promise<void>;
  /** Ends the task's run in the request that started it. */
  finishRun(record: TaskRecord): Promise<void>;
}

/**
 * Delivers a task's ending into its home thread. It runs as queued work of that thread (a
 * continuation queued once per task), so it waits its turn behind the thread's messages, posts
 * through the work's outbox (recorded before posting: a crash never posts it twice or loses it),
 * and its agents find it in their history afterwards ("what did the research find?").
 */
export class TaskResults {
  readonly #store: TaskStore;
  readonly #hooks: TaskHomeHooks;
  readonly #logger: Logger;

  constructor(store: TaskStore, hooks: TaskHomeHooks, logger: Logger) {
    this.#store = store;
    this.#hooks = hooks;
    this.#logger = logger;
  }

  async deliver(work: ContinuationWork): Promise<void> {
    const taskId = String(work.continuation.data?.taskId ?? "");
    const record = await this.#store.get(taskId);
    if (!record) {
      this.#logger.warn("the ending of an unknown task was dropped", { taskId, key: work.key });
      return;
    }
    const text = endingText(record, work.commandPrefix ?? "/");
    // History and request first: both are idempotent, so a crash before the post repeats them harmlessly.
    await this.#hooks.appendToHistory(record.home.key, {
      id: `task-ended:${record.id}`,
      agent: record.agent,
      text,
    });
    await this.#hooks.finishRun(record);
    // A cancel a person asked for was answered when they asked: the thread hears nothing more.
    if (cancelledByPerson(record)) return;
    await work.deliver({
      conversation: record.home.conversation,
      text,
      ...(record.home.messageId ? { replyTo: record.home.messageId } : {}),
      recipientId: record.requesterId,
      agent: record.agent,
    });
  }
}

function cancelledByPerson(record: TaskRecord): boolean {
  return record.status === "cancelled" && record.changedBy !== undefined;
}

/** What the thread reads when a task ends. */
export function endingText(record: TaskRecord, prefix: string): string {
  const head = `**Task ${record.id} · ${record.title}**`;
  const effort = `${record.iteration} step${record.iteration === 1 ? "" : "s"}`;
  switch (record.status) {
    case "completed":
      return `${head} is done (${effort}).\n\n${record.result ?? ""}`.trim();
    case "cancelled":
      return record.changedBy
        ? `${head} was cancelled by ${record.changedBy} after ${effort}.`
        : `${head} was cancelled: ${record.lastError ?? "no reason given"}.`;
    default: {
      const partial = record.result ? `\n\nWhat it had so far:\n\n${record.result}` : "";
      return `${head} stopped after ${effort}: ${record.lastError ?? "it failed"}. ${prefix}task ${record.id} shows its last steps.${partial}`;
    }
  }
}
