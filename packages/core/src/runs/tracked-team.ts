import { randomBytes } from "node:crypto";
import type { ConversationRef } from "../conversation/ref.ts";
import type {
  ContinuationHandler,
  ContinuationWork,
  Responder,
  Turn,
  TurnAnswer,
} from "../engine/responder.ts";
import { DEFAULT_DELIVERY_RETRY, withDeliveryRetry } from "../outbox/retry-delivery.ts";
import { abortedByShutdown, userMessageOf } from "../runtime/errors.ts";
import { withLogContext } from "../runtime/log-context.ts";
import type { Logger } from "../runtime/logger.ts";
import { approvalPrompt, type RunInput } from "../team/run-outcome.ts";
import type { Team } from "../team/team.ts";
import { CONTINUATION, type RunScheduler } from "./continuations.ts";
import {
  type RequestRecord,
  type RunRecord,
  type RunTrigger,
  replyTargetOf,
  withReplyTo,
} from "./request-record.ts";
import type { RequestTracker } from "./request-tracker.ts";

/** A run the bot starts itself (see `TrackedTeam.runInitiated`). */
export interface InitiatedRun {
  /** The thread it runs in (its history, its lock). */
  readonly key: string;
  /** Where its answers go (the thread, or the channel or room it is in). */
  readonly conversation: ConversationRef;
  /** Names the run across attempts (`schedule:<id>:<due time>`); never a platform message id. */
  readonly originId: string;
  /** The message its answers reply to; absent: a new message. */
  readonly replyTo?: string;
  /** Whose run it is: their time zone, tools' user, usage. */
  readonly userId: string;
  /** The run's message (what it is, and what to do). */
  readonly text: string;
  /** What started it, for the request and the run-steps log (`schedule`). */
  readonly trigger: RunTrigger;
  /** Aborted by shutdown or a lost lock: the run stays queued and runs again. */
  readonly signal: AbortSignal;
  /** The command prefix that works where its answers go. */
  readonly commandPrefix?: string;
}

/** What an initiated run answered, with the request and run it was recorded under. */
export interface InitiatedAnswer extends TurnAnswer {
  readonly requestId: string;
  readonly runId: string;
}

const followUpText = (tool: string) =>
  `(${tool} attached new tools for you. Continue answering my previous request with them; do not mention this note.)`;

/**
 * The team, tracked: every user message opens a request, and every run it causes — the first,
 * the follow-up after tools were attached, the resume after approval, an external job's report —
 * is recorded against it and answers in the origin's thread, as a reply to the origin message.
 */
export class TrackedTeam implements Responder, ContinuationHandler {
  readonly #team: Team;
  readonly #tracker: RequestTracker;
  readonly #logger: Logger;
  #scheduler: RunScheduler | undefined;

  constructor(options: { team: Team; tracker: RequestTracker; logger: Logger }) {
    this.#team = options.team;
    this.#tracker = options.tracker;
    this.#logger = options.logger;
  }

  bind(scheduler: RunScheduler): void {
    this.#scheduler = scheduler;
  }

  async respond(turn: Turn): Promise<TurnAnswer> {
    // The same message again (a retry after a crash or a stop) continues its request, never opens a second.
    const earlier = await this.#tracker.byOrigin(turn.message.id);
    if (earlier) {
      return this.#execute(
        earlier,
        await this.#runFor(earlier, "user_message"),
        {
          text: turn.text,
          ...(turn.attachments ? { attachments: turn.attachments } : {}),
          ...(turn.interim ? { interim: turn.interim } : {}),
        },
        turn.signal,
        turn.commandPrefix,
      );
    }
    await this.#supersedeApprovals(turn.key);
    // A new request is written with its first run in one go.
    const { request, run } = await this.#tracker.openWithRun(
      {
        conversationKey: turn.key,
        origin: {
          conversation: turn.conversation,
          messageId: turn.message.id,
          authorId: turn.message.author.id,
        },
        agent: null,
      },
      "user_message",
    );
    const input = {
      text: turn.text,
      ...(turn.onEvent ? { onEvent: turn.onEvent } : {}),
      ...(turn.attachments ? { attachments: turn.attachments } : {}),
      ...(turn.interim ? { interim: turn.interim } : {}),
    };
    return this.#execute(request, { ...run, resumed: false }, input, turn.signal, turn.commandPrefix);
  }

  /**
   * A run the bot starts itself in a thread (a schedule's fire): a request of its own, named by
   * `originId`, so the same run repeated after a crash continues that request instead of opening a
   * second. The caller delivers the answer.
   */
  async runInitiated(run: InitiatedRun): Promise<InitiatedAnswer> {
    const earlier = await this.#tracker.byOrigin(run.originId);
    const opened = earlier
      ? { request: earlier, run: await this.#runFor(earlier, run.trigger) }
      : await this.#tracker
          .openWithRun(
            {
              conversationKey: run.key,
              origin: {
                conversation: run.conversation,
                messageId: run.originId,
                authorId: run.userId,
                replyTo: run.replyTo ?? null,
              },
              agent: null,
            },
            run.trigger,
          )
          .then((fresh) => ({ request: fresh.request, run: { ...fresh.run, resumed: false } }));
    const answer = await this.#execute(
      opened.request,
      opened.run,
      { text: run.text },
      run.signal,
      run.commandPrefix,
    );
    return { ...answer, requestId: opened.request.id, runId: opened.run.runId };
  }

  async continue(work: ContinuationWork): Promise<void> {
    const { key, continuation, signal, deliver, commandPrefix } = work;
    const interim = work.interim ? { interim: work.interim } : {};
    const request = await this.#tracker.get(continuation.requestId);
    if (!request) {
      this.#logger.warn("continuation for an unknown request dropped", {
        key,
        requestId: continuation.requestId,
      });
      return;
    }
    const data = continuation.data ?? {};
    const parentRunId = typeof data.parentRunId === "string" ? data.parentRunId : undefined;
    try {
      switch (continuation.type) {
        case CONTINUATION.toolsAttached: {
          const run = await this.#runFor(request, "tools_attached", parentRunId);
          const text = followUpText(String(data.tool));
          const answer = await this.#execute(request, run, { text, ...interim }, signal, commandPrefix);
          await this.#answer(request, answer, deliver);
          return;
        }
        case CONTINUATION.approval: {
          const run = await this.#runFor(request, "approval", parentRunId);
          const resume = { approved: data.approved === true, by: String(data.by ?? "someone") };
          if (data.showOnPrompt === true) await this.#showOnPrompt(request.id, resume, signal);
          const answer = await this.#execute(request, run, { resume, ...interim }, signal, commandPrefix);
          await this.#answer(request, answer, deliver);
          return;
        }
        case CONTINUATION.externalCompleted:
        case CONTINUATION.externalFailed:
          await this.#finishExternal(
            request,
            continuation.type === CONTINUATION.externalCompleted,
            data,
            deliver,
          );
          return;
        default:
          this.#logger.error("unknown continuation type", { key, type: continuation.type });
      }
    } catch (error) {
      if (signal.aborted) throw error;
      const reference = randomBytes(3).toString("hex");
      this.#logger.error("follow-up run failed", { key, requestId: request.id, reference, error });
      const sentence =
        userMessageOf(error) ??
        `Sorry, something went wrong while finishing your request (reference ${reference}).`;
      await this.#answer(request, { text: sentence }, deliver);
    }
  }

  /**
   * The run to execute. A request has one run per trigger and parent run, so one already recorded
   * is this work done again: the process died or stopped under it, perhaps after it ended and
   * before its answer was kept. It runs again under its own id: what it recorded is reused (the
   * model's tool calls, their results, its answer), and no tool runs twice.
   */
  async #runFor(
    request: RequestRecord,
    triggeredBy: RunTrigger,
    parentRunId?: string,
  ): Promise<RunRecord & { resumed: boolean }> {
    const earlier = request.runs.findLast(
      (run) => run.triggeredBy === triggeredBy && run.parentRunId === parentRunId,
    );
    if (earlier) {
      if (request.status !== "active") await this.#tracker.setStatus(request.id, "active");
      this.#logger.info("running a run again", {
        requestId: request.id,
        runId: earlier.runId,
        status: earlier.status,
      });
      return { ...earlier, resumed: true };
    }
    const run = await this.#tracker.startRun(request.id, {
      triggeredBy,
      ...(parentRunId ? { parentRunId } : {}),
    });
    return { ...run, resumed: false };
  }

  async #execute(
    request: RequestRecord,
    run: RunRecord & { resumed: boolean },
    input: Pick<RunInput, "text" | "resume" | "onEvent" | "attachments" | "interim">,
    signal: AbortSignal,
    commandPrefix: string | undefined,
  ): Promise<TurnAnswer> {
    let outcome: Awaited<ReturnType<Team["run"]>>;
    try {
      // Every line logged while the run works carries its request and run.
      outcome = await withLogContext({ requestId: request.id, runId: run.runId }, () =>
        this.#team.run({
          key: request.conversationKey,
          userId: request.origin.authorId,
          signal,
          requestId: request.id,
          runId: run.runId,
          resumed: run.resumed,
          trigger: run.triggeredBy,
          ...(commandPrefix ? { commandPrefix } : {}),
          ...input,
        }),
      );
    } catch (error) {
      // Stopping: the run stays "running" and its work stays queued; the next start runs it again.
      if (abortedByShutdown(signal)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      await this.#tracker.settleRun(
        request.id,
        run.runId,
        { status: signal.aborted ? "cancelled" : "failed", error: message },
        "failed",
        { note: signal.aborted ? "cancelled" : message },
      );
      throw error;
    }
    switch (outcome.kind) {
      case "answered":
        await this.#tracker.settleRun(request.id, run.runId, { status: "completed" }, "completed", {
          agent: outcome.agent,
        });
        return {
          text: outcome.text,
          agent: outcome.agent,
          ...(outcome.historyTokens !== undefined ? { historyTokens: outcome.historyTokens } : {}),
          ...(outcome.files?.length ? { files: outcome.files } : {}),
        };
      case "awaiting-approval":
        await this.#tracker.settleRun(request.id, run.runId, { status: "interrupted" }, "awaiting_approval", {
          agent: outcome.agent,
          approval: outcome.approval,
        });
        return {
          text: approvalPrompt(outcome.approval, commandPrefix),
          agent: outcome.agent,
          approval: { requestId: request.id, requesterId: request.origin.authorId },
        };
      case "with-person":
        await this.#tracker.settleRun(request.id, run.runId, { status: "completed" }, "completed", {
          agent: outcome.agent,
          note: "a person has this thread; the bot recorded the message and did not answer",
        });
        return { text: "", agent: outcome.agent, silent: true };
      case "stopped-for-tool":
        await this.#tracker.settleRun(request.id, run.runId, { status: "completed" }, "active", {
          agent: outcome.agent,
        });
        await this.#requireScheduler().enqueueContinuation(request.conversationKey, {
          // Queued once even if this run is run again after a crash.
          id: `${run.runId}:${CONTINUATION.toolsAttached}`,
          requestId: request.id,
          type: CONTINUATION.toolsAttached,
          data: { parentRunId: run.runId, tool: outcome.tool },
        });
        return { text: "", agent: outcome.agent };
    }
  }

  async #finishExternal(
    request: RequestRecord,
    completed: boolean,
    data: Readonly<Record<string, unknown>>,
    deliver: ContinuationWork["deliver"],
  ): Promise<void> {
    const runId = String(data.runId);
    if (!request.runs.some((run) => run.runId === runId)) {
      await this.#tracker.startRun(request.id, { triggeredBy: "webhook", runId });
    }
    const error = typeof data.error === "string" ? data.error : undefined;
    const eventId = typeof data.eventId === "string" ? data.eventId : undefined;
    await this.#tracker.settleRun(
      request.id,
      runId,
      {
        status: completed ? "completed" : "failed",
        ...(error ? { error } : {}),
        ...(eventId ? { closedByEvent: eventId } : {}),
      },
      completed ? "completed" : "failed",
      error ? { note: error } : {},
    );
    const text = completed
      ? String(data.message ?? "")
      : `The job working on this failed${error ? `: ${error}` : ""}.`;
    if (text.trim() !== "") await this.#answer(request, { text }, deliver);
  }

  /** Answers always go to the origin's thread, as a reply to the origin message. */
  async #answer(
    request: RequestRecord,
    answer: TurnAnswer,
    deliver: ContinuationWork["deliver"],
  ): Promise<void> {
    if (answer.text.trim() === "" && !answer.files?.length) return;
    await deliver({
      conversation: request.origin.conversation,
      text: answer.text,
      ...(answer.files?.length ? { files: answer.files } : {}),
      ...withReplyTo(replyTargetOf(request.origin)),
      recipientId: request.origin.authorId,
      ...(answer.agent ? { agent: answer.agent } : {}),
      ...(answer.approval ? { approval: answer.approval } : {}),
    });
  }

  /**
   * A decision typed or made in the console, shown on the prompt (an edit: repeating it after a
   * crash is harmless), with the outbox's retries. The decision stands either way: a prompt that
   * cannot be updated keeps its buttons, and that is logged.
   */
  async #showOnPrompt(
    requestId: string,
    decision: { approved: boolean; by: string },
    signal: AbortSignal,
  ): Promise<void> {
    const { deliverer } = this.#requireScheduler();
    await withDeliveryRetry(() => deliverer.showDecision(requestId, decision), {
      policy: DEFAULT_DELIVERY_RETRY,
      signal,
      onRetry: (attempt, delayMs, error) =>
        this.#logger.warn("showing a decision on its prompt failed; retrying", {
          requestId,
          attempt,
          delayMs,
          error,
        }),
    }).catch((error: unknown) => {
      if (signal.aborted) throw error;
      this.#logger.warn("could not show a decision on the approval prompt", { requestId, error });
    });
  }

  /** A new message starts a new run; a pending approval in the same conversation can no longer resume. */
  async #supersedeApprovals(key: string): Promise<void> {
    for (const request of await this.#tracker.openIn(key)) {
      if (request.status !== "awaiting_approval") continue;
      await this.#tracker.setStatus(request.id, "failed", {
        note: "superseded by a newer message; the action did not run",
      });
    }
  }

  #requireScheduler(): RunScheduler {
    if (!this.#scheduler) throw new Error("TrackedTeam.bind(engine) was not called");
    return this.#scheduler;
  }
}
