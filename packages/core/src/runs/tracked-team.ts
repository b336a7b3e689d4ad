import { randomBytes } from "node:crypto";
import type { Deliverer } from "../delivery/deliverer.ts";
import type { Continuation, ContinuationHandler, Responder, Turn, TurnAnswer } from "../engine/responder.ts";
import { userMessageOf } from "../runtime/errors.ts";
import type { Logger } from "../runtime/logger.ts";
import { approvalPrompt, type RunInput } from "../team/run-outcome.ts";
import type { Team } from "../team/team.ts";
import type { RequestRecord, RunRecord } from "./request-record.ts";
import type { RequestTracker } from "./request-tracker.ts";

/** What tracking needs from the engine, bound once the engine exists. */
export interface RunScheduler {
  readonly deliverer: Deliverer;
  enqueueContinuation(key: string, continuation: Continuation): Promise<void>;
}

export const CONTINUATION = {
  toolsAttached: "tools_attached",
  approval: "approval",
  externalCompleted: "external_completed",
  externalFailed: "external_failed",
} as const;

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
    await this.#supersedeApprovals(turn.key);
    const request = await this.#tracker.open({
      conversationKey: turn.key,
      origin: {
        conversation: turn.conversation,
        messageId: turn.message.id,
        authorId: turn.message.author.id,
      },
      agent: null,
    });
    const run = await this.#tracker.startRun(request.id, { triggeredBy: "user_message" });
    return this.#execute(request, run, { text: turn.text }, turn.signal);
  }

  async continue(key: string, continuation: Continuation, signal: AbortSignal): Promise<void> {
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
          const run = await this.#tracker.startRun(request.id, {
            triggeredBy: "tools_attached",
            ...(parentRunId ? { parentRunId } : {}),
          });
          await this.#answer(
            request,
            await this.#execute(request, run, { text: followUpText(String(data.tool)) }, signal),
          );
          return;
        }
        case CONTINUATION.approval: {
          const run = await this.#tracker.startRun(request.id, {
            triggeredBy: "approval",
            ...(parentRunId ? { parentRunId } : {}),
          });
          const resume = { approved: data.approved === true, by: String(data.by ?? "someone") };
          await this.#answer(request, await this.#execute(request, run, { resume }, signal));
          return;
        }
        case CONTINUATION.externalCompleted:
        case CONTINUATION.externalFailed:
          await this.#finishExternal(request, continuation.type === CONTINUATION.externalCompleted, data);
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
      await this.#answer(request, { text: sentence });
    }
  }

  async #execute(
    request: RequestRecord,
    run: RunRecord,
    input: Pick<RunInput, "text" | "resume">,
    signal: AbortSignal,
  ): Promise<TurnAnswer> {
    let outcome: Awaited<ReturnType<Team["run"]>>;
    try {
      outcome = await this.#team.run({
        key: request.conversationKey,
        userId: request.origin.authorId,
        signal,
        requestId: request.id,
        runId: run.runId,
        ...input,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.#tracker.finishRun(request.id, run.runId, signal.aborted ? "cancelled" : "failed", message);
      await this.#tracker.setStatus(request.id, "failed", { note: signal.aborted ? "cancelled" : message });
      throw error;
    }
    switch (outcome.kind) {
      case "answered":
        await this.#tracker.finishRun(request.id, run.runId, "completed");
        await this.#tracker.setStatus(request.id, "completed", { agent: outcome.agent });
        return { text: outcome.text, agent: outcome.agent };
      case "awaiting-approval":
        await this.#tracker.finishRun(request.id, run.runId, "interrupted");
        await this.#tracker.setStatus(request.id, "awaiting_approval", {
          agent: outcome.agent,
          approval: outcome.approval,
        });
        return { text: approvalPrompt(outcome.approval), agent: outcome.agent };
      case "stopped-for-tool":
        await this.#tracker.finishRun(request.id, run.runId, "completed");
        await this.#tracker.setStatus(request.id, "active", { agent: outcome.agent });
        await this.#requireScheduler().enqueueContinuation(request.conversationKey, {
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
  ): Promise<void> {
    const runId = String(data.runId);
    if (!request.runs.some((run) => run.runId === runId)) {
      await this.#tracker.startRun(request.id, { triggeredBy: "webhook", runId });
    }
    const error = typeof data.error === "string" ? data.error : undefined;
    await this.#tracker.finishRun(request.id, runId, completed ? "completed" : "failed", error);
    await this.#tracker.setStatus(
      request.id,
      completed ? "completed" : "failed",
      error ? { note: error } : {},
    );
    const text = completed
      ? String(data.message ?? "")
      : `The job working on this failed${error ? `: ${error}` : ""}.`;
    if (text.trim() !== "") await this.#answer(request, { text });
  }

  /** Answers always go to the origin's thread, as a reply to the origin message. */
  async #answer(request: RequestRecord, answer: TurnAnswer): Promise<void> {
    if (answer.text.trim() === "") return;
    await this.#requireScheduler().deliverer.deliver({
      conversation: request.origin.conversation,
      text: answer.text,
      replyTo: request.origin.messageId,
      recipientId: request.origin.authorId,
      ...(answer.agent ? { agent: answer.agent } : {}),
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
