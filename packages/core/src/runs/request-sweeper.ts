import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { RunScheduler } from "./continuations.ts";
import { dueAction, type RequestTimeouts, timeoutSecondsFor } from "./request-due.ts";
import { type RequestRecord, replyTargetOf, withReplyTo } from "./request-record.ts";
import type { RequestTracker } from "./request-tracker.ts";

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

/** What one pass did: "still working" notices posted, requests timed out, closed records deleted. */
export interface RequestSweepReport {
  readonly noticed: number;
  readonly timedOut: number;
  readonly deleted: number;
}

/**
 * Reads the requests that are due: one "still working" notice after `noticeAfterSeconds`, closed as
 * timed_out after `timeoutSeconds` (approvals: `approvalTimeoutSeconds`), and old closed records
 * deleted. It reads the due index, never the whole store, so a sweep costs what is due.
 */
export class RequestSweeper {
  readonly #options: RequestSweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<RequestSweepReport> | undefined;

  constructor(options: RequestSweeperOptions) {
    this.#options = options;
  }

  /** Sweeps on this process's timer (one process); a cluster calls `sweep()` once per cluster instead. */
  start(intervalMs: number): void {
    this.#timer = setInterval(() => {
      // A pass still running is left alone: its failure is logged once, by the tick that began it.
      if (this.#sweeping) return;
      this.sweep().catch((error: unknown) => this.#options.logger.error("request sweep failed", { error }));
    }, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    // Waits for a running pass; its failure was reported to whoever started it.
    await this.#sweeping?.catch(() => undefined);
  }

  /** One pass; a pass already running in this process is joined rather than doubled. */
  sweep(): Promise<RequestSweepReport> {
    this.#sweeping ??= this.#sweepOnce().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #sweepOnce(): Promise<RequestSweepReport> {
    const { tracker, clock, timeouts } = this.#options;
    const now = clock.now();
    let noticed = 0;
    let timedOut = 0;
    // Handling a due request moves it past `now` (see nextDueAt), so each batch is new work;
    // the seen-set only guards against a request whose handling failed to move it.
    const seen = new Set<string>();
    for (;;) {
      const due = (await tracker.dueBy(now)).filter((request) => !seen.has(request.id));
      if (due.length === 0) break;
      for (const request of due) {
        seen.add(request.id);
        const action = dueAction(request, timeouts, now);
        if (action === "time-out") {
          await this.#timeOut(request, timeoutSecondsFor(request, timeouts));
          timedOut += 1;
        } else if (action === "notice") {
          await this.#notice(request);
          noticed += 1;
        }
      }
    }
    const deleted = await tracker.deleteClosedBefore(now - timeouts.retentionDays * 24 * 60 * 60 * 1000);
    return { noticed, timedOut, deleted };
  }

  async #notice(request: RequestRecord): Promise<void> {
    const { tracker } = this.#options;
    await this.#tell(request, "still-working", "Still working on it — I'll answer here when it's done.", () =>
      tracker.setStatus(request.id, request.status, { noticeSent: true }).then(() => undefined),
    );
  }

  async #timeOut(request: RequestRecord, limitSeconds: number): Promise<void> {
    const what =
      request.status === "awaiting_approval"
        ? "Nobody approved the waiting action"
        : "I could not finish this";
    await this.#tell(
      request,
      "timed-out",
      `${what} within ${duration(limitSeconds)}, so I stopped waiting (timed out). Please ask again if you still need it.`,
      () =>
        this.#options.tracker
          .setStatus(request.id, "timed_out", { note: `no answer within ${duration(limitSeconds)}` })
          .then(() => undefined),
    );
    this.#options.logger.info("request timed out", { requestId: request.id, status: request.status });
  }

  /**
   * The notice is in the outbox before the request's status changes, and posted after: a crash
   * anywhere between loses neither (recovery posts a recorded notice; a request whose status did
   * not change is due again, and its notice, named by request and kind, is found recorded).
   */
  async #tell(
    request: RequestRecord,
    kind: "still-working" | "timed-out",
    text: string,
    change: () => Promise<void>,
  ): Promise<void> {
    await this.#options.scheduler().notices.send(
      `request:${request.id}:${kind}`,
      {
        conversation: request.origin.conversation,
        text,
        ...withReplyTo(replyTargetOf(request.origin)),
        recipientId: request.origin.authorId,
      },
      change,
    );
  }
}
