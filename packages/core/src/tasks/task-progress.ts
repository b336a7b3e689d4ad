import type Keyv from "keyv";
import type { PostedMessage } from "../conversation/messages.ts";
import type { Deliverer } from "../delivery/deliverer.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import type { TaskRecord } from "./task-record.ts";
import type { TaskObserver } from "./task-runner.ts";
import type { TaskStepEntry } from "./task-store.ts";

/** A thread hears of a task's progress at most this often: platforms rate-limit edits. */
const MIN_EDIT_INTERVAL_MS = 5_000;

/**
 * `tasks.progress: milestones`: one message per task in its home thread, posted at its first step
 * and edited in place as it goes — never a message per step. The post carries an idempotency key
 * (a crash between posting and remembering it finds the post instead of posting again), and the
 * message is remembered beside the task, not in its record (which the running step owns).
 * Progress is best effort: a failed post or edit is logged and the task goes on.
 */
export class TaskProgress implements TaskObserver {
  readonly #posted: Keyv<PostedMessage>;
  readonly #deliverer: () => Deliverer | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #lastEdit = new Map<string, number>();

  constructor(options: {
    store: Store;
    deliverer: () => Deliverer | undefined;
    clock: Clock;
    logger: Logger;
  }) {
    this.#posted = options.store.namespace<PostedMessage>("task-progress");
    this.#deliverer = options.deliverer;
    this.#clock = options.clock;
    this.#logger = options.logger;
  }

  stepFinished(record: TaskRecord, entry: TaskStepEntry): void {
    const now = this.#clock.now();
    const last = this.#lastEdit.get(record.id);
    if (last !== undefined && now - last < MIN_EDIT_INTERVAL_MS) return;
    this.#lastEdit.set(record.id, now);
    void this.#show(record, progressLine(record, entry));
  }

  ended(record: TaskRecord): void {
    this.#lastEdit.delete(record.id);
    void this.#show(
      record,
      `_Task ${record.id} · ${record.title}: ${record.status} after ${record.iteration} steps._`,
      true,
    );
  }

  async #show(record: TaskRecord, text: string, final = false): Promise<void> {
    const deliverer = this.#deliverer();
    if (!deliverer) return;
    try {
      const posted = await this.#posted.get(record.id);
      if (posted) {
        await deliverer.replace(posted, text);
        if (final) await this.#posted.delete(record.id);
        return;
      }
      if (final) return;
      const key = `task:${record.id}:progress`;
      const found = await deliverer.findPosted(record.home.conversation, key);
      const message =
        found ??
        (await deliverer.post({
          conversation: record.home.conversation,
          text,
          ...(record.home.messageId ? { replyTo: record.home.messageId } : {}),
          recipientId: record.requesterId,
          agent: record.agent,
          idempotencyKey: key,
        }));
      if (found) await deliverer.replace(found, text);
      await this.#posted.set(record.id, message, 7 * 24 * 3_600_000);
    } catch (error) {
      this.#logger.warn("could not show a task's progress in its thread", { taskId: record.id, error });
    }
  }
}

function progressLine(record: TaskRecord, entry: TaskStepEntry): string {
  const tools = [...new Set(entry.toolCalls.map((call) => call.name))];
  const doing = tools.length > 0 ? `used ${tools.join(", ")}` : "writing";
  return `_Task ${record.id} · ${record.title}: step ${entry.iteration} of at most ${record.maxIterations} (${doing})…_`;
}
