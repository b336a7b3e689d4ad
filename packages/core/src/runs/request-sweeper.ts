import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { dueAction, type RequestTimeouts, timeoutSecondsFor } from "./request-due.ts";
import type { RequestRecord } from "./request-record.ts";
import type { RequestTracker } from "./request-tracker.ts";
import type { RunScheduler } from "./tracked-team.ts";

const duration = (seconds: number) =>
  seconds >= 7200
    ? `${Math.round(seconds / 3600)} hours`
    : seconds >= 120
      ? `${Math.round(seconds / 60)} minutes`
      : `${seconds} seconds`;

export interface RequestSweeperOptions {
  readonly tracker: RequestTracker;
  readonly scheduler: () => RunScheduler;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly timeouts: RequestTimeouts;
}

/**
 * Reads the requests that are due: one "still working" notice after `noticeAfterSeconds`, closed as
 * timed_out after `timeoutSeconds` (approvals: `approvalTimeoutSeconds`), and old closed records
 * deleted. It reads the due index, never the whole store, so a sweep costs what is due.
 */
export class RequestSweeper {
  readonly #options: RequestSweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(options: RequestSweeperOptions) {
    this.#options = options;
  }

  start(intervalMs: number): void {
    this.#timer = setInterval(() => {
      this.#sweeping ??= this.sweep()
        .catch((error: unknown) => this.#options.logger.error("request sweep failed", { error }))
        .finally(() => {
          this.#sweeping = undefined;
        });
    }, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeping;
  }

  async sweep(): Promise<void> {
    const { tracker, clock, timeouts } = this.#options;
    const now = clock.now();
    // Handling a due request moves it past `now` (see nextDueAt), so each batch is new work;
    // the seen-set only guards against a request whose handling failed to move it.
    const seen = new Set<string>();
    for (;;) {
      const due = (await tracker.dueBy(now)).filter((request) => !seen.has(request.id));
      if (due.length === 0) break;
      for (const request of due) {
        seen.add(request.id);
        const action = dueAction(request, timeouts, now);
        if (action === "time-out") await this.#timeOut(request, timeoutSecondsFor(request, timeouts));
        else if (action === "notice") await this.#notice(request);
      }
    }
    await tracker.deleteClosedBefore(now - timeouts.retentionDays * 24 * 60 * 60 * 1000);
  }

  async #notice(request: RequestRecord): Promise<void> {
    await this.#options.tracker.setStatus(request.id, request.status, { noticeSent: true });
    await this.#tell(request, "Still working on it — I'll answer here when it's done.");
  }

  async #timeOut(request: RequestRecord, limitSeconds: number): Promise<void> {
    await this.#options.tracker.setStatus(request.id, "timed_out", {
      note: `no answer within ${duration(limitSeconds)}`,
    });
    const what =
      request.status === "awaiting_approval"
        ? "Nobody approved the waiting action"
        : "I could not finish this";
    await this.#tell(
      request,
      `${what} within ${duration(limitSeconds)}, so I stopped waiting (timed out). Please ask again if you still need it.`,
    );
    this.#options.logger.info("request timed out", { requestId: request.id, status: request.status });
  }

  async #tell(request: RequestRecord, text: string): Promise<void> {
    await this.#options.scheduler().deliverer.deliver({
      conversation: request.origin.conversation,
      text,
      replyTo: request.origin.messageId,
      recipientId: request.origin.authorId,
    });
  }
}
