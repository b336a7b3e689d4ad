import { randomUUID } from "node:crypto";
import type Keyv from "keyv";
import type { ConversationRef } from "../conversation/ref.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Store } from "../store/types.ts";
import {
  isOpen,
  type RequestRecord,
  type RequestStatus,
  type RunRecord,
  type RunStatus,
  type RunTrigger,
  withRun,
  withStatus,
} from "./request-record.ts";

export class UnknownRequestError extends Error {
  constructor(requestId: string) {
    super(`no request with id ${requestId}`);
    this.name = "UnknownRequestError";
  }
}

/**
 * The persisted record of every request and its runs. Looked up by request id, by run id and by
 * conversation — never by agent: two questions to the same agent are two requests.
 */
export class RequestTracker {
  readonly #requests: Keyv<RequestRecord>;
  readonly #runIndex: Keyv<string>;
  readonly #originIndex: Keyv<string>;
  /** Open request id → conversation key; what the sweeper walks. */
  readonly #open: Keyv<string>;
  readonly #clock: Clock;

  constructor(store: Store, clock: Clock) {
    this.#requests = store.namespace<RequestRecord>("requests");
    this.#runIndex = store.namespace<string>("request-runs");
    this.#originIndex = store.namespace<string>("request-origins");
    this.#open = store.namespace<string>("open-requests");
    this.#clock = clock;
  }

  async open(input: {
    conversationKey: string;
    origin: RequestRecord["origin"];
    agent: string | null;
  }): Promise<RequestRecord> {
    const now = this.#clock.now();
    const request: RequestRecord = {
      id: `req-${randomUUID()}`,
      conversationKey: input.conversationKey,
      origin: input.origin,
      agent: input.agent,
      status: "active",
      createdAt: now,
      updatedAt: now,
      waitingSince: now,
      noticeSent: false,
      runs: [],
    };
    await this.#originIndex.set(input.origin.messageId, request.id);
    await this.#save(request);
    return request;
  }

  async get(requestId: string): Promise<RequestRecord | undefined> {
    return (await this.#requests.get(requestId)) ?? undefined;
  }

  async require(requestId: string): Promise<RequestRecord> {
    const request = await this.get(requestId);
    if (!request) throw new UnknownRequestError(requestId);
    return request;
  }

  /** The request a user message opened. */
  async byOrigin(messageId: string): Promise<RequestRecord | undefined> {
    const requestId = await this.#originIndex.get(messageId);
    return requestId ? this.get(requestId) : undefined;
  }

  async byRun(runId: string): Promise<RequestRecord | undefined> {
    const requestId = await this.#runIndex.get(runId);
    return requestId ? this.get(requestId) : undefined;
  }

  /** Open requests of one conversation, oldest first. */
  async openIn(conversationKey: string): Promise<RequestRecord[]> {
    return (await this.openRequests()).filter((request) => request.conversationKey === conversationKey);
  }

  async openRequests(): Promise<RequestRecord[]> {
    const found: RequestRecord[] = [];
    if (!this.#open.iterator) throw new Error("the store cannot list open requests");
    for await (const [requestId] of this.#open.iterator(undefined)) {
      const request = await this.get(String(requestId));
      if (request && isOpen(request)) found.push(request);
    }
    return found.sort((a, b) => a.createdAt - b.createdAt);
  }

  async startRun(
    requestId: string,
    run: { triggeredBy: RunTrigger; parentRunId?: string; runId?: string },
  ): Promise<RunRecord> {
    const request = await this.require(requestId);
    const record: RunRecord = {
      runId: run.runId ?? `run-${randomUUID()}`,
      triggeredBy: run.triggeredBy,
      ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
      status: "running",
      startedAt: this.#clock.now(),
    };
    await this.#runIndex.set(record.runId, requestId);
    await this.#save(withRun(request, record, this.#clock.now()));
    return record;
  }

  async finishRun(
    requestId: string,
    runId: string,
    status: RunStatus,
    error?: string,
  ): Promise<RequestRecord> {
    const request = await this.require(requestId);
    const run = request.runs.find((candidate) => candidate.runId === runId);
    if (!run) throw new Error(`request ${requestId} has no run ${runId}`);
    const now = this.#clock.now();
    const finished: RunRecord = { ...run, status, endedAt: now, ...(error ? { error } : {}) };
    const updated = withRun(request, finished, now);
    await this.#save(updated);
    return updated;
  }

  async setStatus(
    requestId: string,
    status: RequestStatus,
    changes: Partial<Pick<RequestRecord, "agent" | "approval" | "noticeSent" | "note">> = {},
  ) {
    const request = await this.require(requestId);
    const updated: RequestRecord = { ...withStatus(request, status, this.#clock.now()), ...changes };
    await this.#save(updated);
    return updated;
  }

  /** Deletes closed requests last changed before `before`; returns how many. */
  async deleteClosedBefore(before: number): Promise<number> {
    let deleted = 0;
    if (!this.#requests.iterator) return 0;
    for await (const [requestId, request] of this.#requests.iterator(undefined)) {
      const record = request as RequestRecord;
      if (isOpen(record) || record.updatedAt >= before) continue;
      await this.#requests.delete(String(requestId));
      for (const run of record.runs) await this.#runIndex.delete(run.runId);
      await this.#originIndex.delete(record.origin.messageId);
      deleted += 1;
    }
    return deleted;
  }

  async #save(request: RequestRecord): Promise<void> {
    await this.#requests.set(request.id, request);
    if (isOpen(request)) await this.#open.set(request.id, request.conversationKey);
    else await this.#open.delete(request.id);
  }
}

export type { ConversationRef };
