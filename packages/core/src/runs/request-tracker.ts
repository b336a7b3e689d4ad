import { randomUUID } from "node:crypto";
import type Keyv from "keyv";
import type { ConversationRef } from "../conversation/ref.ts";
import type { Clock } from "../runtime/clock.ts";
import { writeInOrder } from "../store/in-order.ts";
import type { SortedSets } from "../store/sorted-sets.ts";
import type { Store } from "../store/types.ts";
import type { RequestTimeouts } from "./request-due.ts";
import { CLOSED_SET, DUE_SET, indexChanges, keptSetOf, openSetOf } from "./request-indexes.ts";
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

/** A run to add to a request: what started it, under which run; its id when the caller names it. */
export type NewRun = {
  triggeredBy: RunTrigger;
  parentRunId?: string;
  runId?: string;
  openedByEvent?: string;
};

export class UnknownRequestError extends Error {
  constructor(requestId: string) {
    super(`no request with id ${requestId}`);
    this.name = "UnknownRequestError";
  }
}

/** More open requests than this in one conversation means something upstream is broken. */
const MAX_OPEN_PER_CONVERSATION = 1_000;
/** Requests of one conversation read to find its newest (retention keeps this bounded in practice). */
const MAX_KEPT_LISTED = 10_000;
/** How many due or expired requests one read brings back; a sweep reads batch after batch. */
const SWEEP_BATCH = 500;

/**
 * The persisted record of every request and its runs. Looked up by request id, by run id and by
 * conversation — never by agent: two questions to the same agent are two requests.
 *
 * Nothing here lists the whole store: a conversation's open requests, the requests due for a
 * notice or timeout, and the closed ones due for deletion each have a sorted-set index, so what a
 * turn or a sweep costs follows what it needs, not how many requests are stored. A record is
 * written before its index entries, and a reader that finds an entry whose record is gone or no
 * longer open removes the entry, so the indexes can lag a crash but never keep a request alive.
 * Where the store lands writes sent together in one commit (`Store.writesLandTogether`, the
 * embedded store), they are sent together instead: a crash keeps all of them or none, and a turn
 * waits for one commit, not three.
 */
export class RequestTracker {
  readonly #requests: Keyv<RequestRecord>;
  readonly #runIndex: Keyv<string>;
  readonly #originIndex: Keyv<string>;
  readonly #sets: SortedSets;
  readonly #clock: Clock;
  readonly #timeouts: RequestTimeouts;
  readonly #store: Store;

  constructor(store: Store, clock: Clock, timeouts: RequestTimeouts) {
    this.#store = store;
    this.#requests = store.namespace<RequestRecord>("requests");
    this.#runIndex = store.namespace<string>("request-runs");
    this.#originIndex = store.namespace<string>("request-origins");
    this.#sets = store.sortedSets;
    this.#clock = clock;
    this.#timeouts = timeouts;
  }

  async open(input: {
    conversationKey: string;
    origin: RequestRecord["origin"];
    agent: string | null;
  }): Promise<RequestRecord> {
    const request = this.#newRequest(input, []);
    await writeInOrder(
      this.#store,
      () => this.#originIndex.set(input.origin.messageId, request.id),
      () => this.#save(request, undefined),
    );
    return request;
  }

  /** Opens a request with its first run already running: one write of the record instead of two. */
  async openWithRun(
    input: { conversationKey: string; origin: RequestRecord["origin"]; agent: string | null },
    triggeredBy: RunTrigger,
  ): Promise<{ request: RequestRecord; run: RunRecord }> {
    const run: RunRecord = {
      runId: `run-${randomUUID()}`,
      triggeredBy,
      status: "running",
      startedAt: this.#clock.now(),
    };
    const request = this.#newRequest(input, [run]);
    // The ways to find the record land before the record: a crash in between leaves an index
    // naming nothing (read as absent), never a record that a retry of its message cannot find.
    await writeInOrder(
      this.#store,
      () =>
        Promise.all([
          this.#originIndex.set(input.origin.messageId, request.id),
          this.#runIndex.set(run.runId, request.id),
        ]),
      () => this.#save(request, undefined),
    );
    return { request, run };
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

  /** Open requests of one conversation, oldest first: one index read, one read of their records. */
  async openIn(conversationKey: string): Promise<RequestRecord[]> {
    const set = openSetOf(conversationKey);
    return this.#openListed(
      set,
      await this.#sets.upTo(set, Number.POSITIVE_INFINITY, MAX_OPEN_PER_CONVERSATION),
    );
  }

  /** Open requests the sweeper owes a notice or a timeout by `now`, soonest first, at most `limit`. */
  async dueBy(now: number, limit = SWEEP_BATCH): Promise<RequestRecord[]> {
    return this.#openListed(DUE_SET, await this.#sets.upTo(DUE_SET, now, limit));
  }

  /** Every open request (all are in the due index), oldest first, at most `limit`: the console's list. */
  async openRequests(limit = SWEEP_BATCH): Promise<RequestRecord[]> {
    const open = await this.#openListed(
      DUE_SET,
      await this.#sets.upTo(DUE_SET, Number.POSITIVE_INFINITY, limit),
    );
    return open.sort((a, b) => a.createdAt - b.createdAt);
  }

  /** How many requests are open, read from the due index (for health checks). */
  openCount(): Promise<number> {
    return this.#sets.count(DUE_SET);
  }

  /** Every kept request of one conversation (open and closed), newest first, from its index (the console). */
  async inConversation(conversationKey: string, limit = 50): Promise<RequestRecord[]> {
    const entries = await this.#sets.upTo(
      keptSetOf(conversationKey),
      Number.POSITIVE_INFINITY,
      MAX_KEPT_LISTED,
    );
    const newest = entries.slice(-limit).map((entry) => entry.member);
    const records = await this.#requests.getMany(newest);
    return records
      .filter((record): record is RequestRecord => record !== undefined)
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  async startRun(requestId: string, run: NewRun): Promise<RunRecord> {
    return this.#startRunOn(await this.require(requestId), run);
  }

  async #startRunOn(request: RequestRecord, run: NewRun): Promise<RunRecord> {
    const record: RunRecord = {
      runId: run.runId ?? `run-${randomUUID()}`,
      triggeredBy: run.triggeredBy,
      ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
      ...(run.openedByEvent ? { openedByEvent: run.openedByEvent } : {}),
      status: "running",
      startedAt: this.#clock.now(),
    };
    await writeInOrder(
      this.#store,
      () => this.#runIndex.set(record.runId, request.id),
      () => this.#save(withRun(request, record, this.#clock.now()), request),
    );
    return record;
  }

  /**
   * The request's run `run.runId`: started now unless the request holds it already — a start
   * repeated after a crash records the run once and never reopens one that ended. Undefined when
   * the request is gone (its retention ended).
   */
  async ensureRun(
    requestId: string,
    run: { triggeredBy: RunTrigger; runId: string; parentRunId?: string },
  ): Promise<RunRecord | undefined> {
    const request = await this.get(requestId);
    if (!request) return undefined;
    return request.runs.find((held) => held.runId === run.runId) ?? (await this.#startRunOn(request, run));
  }

  async finishRun(
    requestId: string,
    runId: string,
    status: RunStatus,
    error?: string,
    closedByEvent?: string,
  ): Promise<RequestRecord> {
    const request = await this.require(requestId);
    const run = request.runs.find((candidate) => candidate.runId === runId);
    if (!run) throw new Error(`request ${requestId} has no run ${runId}`);
    return this.#finishOn(request, run, status, error, closedByEvent);
  }

  /**
   * Ends the run while the request holds it running: a run that ended already (its end repeated
   * after a crash) keeps the ending it has, and a request gone (its retention ended) or without the
   * run changes nothing. Undefined when nothing changed.
   */
  async finishIfRunning(
    requestId: string,
    runId: string,
    status: RunStatus,
    error?: string,
  ): Promise<RequestRecord | undefined> {
    const request = await this.get(requestId);
    const run = request?.runs.find((candidate) => candidate.runId === runId);
    if (!request || run?.status !== "running") return undefined;
    return this.#finishOn(request, run, status, error);
  }

  async #finishOn(
    request: RequestRecord,
    run: RunRecord,
    status: RunStatus,
    error?: string,
    closedByEvent?: string,
  ): Promise<RequestRecord> {
    const now = this.#clock.now();
    const finished: RunRecord = {
      ...run,
      status,
      endedAt: now,
      ...(error ? { error } : {}),
      ...(closedByEvent ? { closedByEvent } : {}),
    };
    const updated = withRun(request, finished, now);
    await this.#save(updated, request);
    return updated;
  }

  async setStatus(
    requestId: string,
    status: RequestStatus,
    changes: Partial<Pick<RequestRecord, "agent" | "approval" | "noticeSent" | "note" | "decision">> = {},
  ) {
    const request = await this.require(requestId);
    const updated: RequestRecord = { ...withStatus(request, status, this.#clock.now()), ...changes };
    await this.#save(updated, request);
    return updated;
  }

  /** Ends a run and sets the request's status in one read and one write (a run's usual ending). */
  async settleRun(
    requestId: string,
    runId: string,
    run: { status: RunStatus; error?: string; closedByEvent?: string },
    status: RequestStatus,
    changes: Partial<Pick<RequestRecord, "agent" | "approval" | "noticeSent" | "note">> = {},
  ): Promise<RequestRecord> {
    const request = await this.require(requestId);
    const found = request.runs.find((candidate) => candidate.runId === runId);
    if (!found) throw new Error(`request ${requestId} has no run ${runId}`);
    const now = this.#clock.now();
    // A run run again (after a crash) ends anew: what its earlier attempt ended with is replaced.
    const { error: _error, closedByEvent: _closedByEvent, ...started } = found;
    const finished: RunRecord = {
      ...started,
      status: run.status,
      endedAt: now,
      ...(run.error ? { error: run.error } : {}),
      ...(run.closedByEvent ? { closedByEvent: run.closedByEvent } : {}),
    };
    const updated: RequestRecord = {
      ...withStatus(withRun(request, finished, now), status, now),
      ...changes,
    };
    await this.#save(updated, request);
    return updated;
  }

  /** Deletes closed requests last changed before `before`, batch by batch; returns how many. */
  async deleteClosedBefore(before: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const expired = (await this.#sets.upTo(CLOSED_SET, before, SWEEP_BATCH)).filter(
        (entry) => entry.score < before,
      );
      if (expired.length === 0) return deleted;
      const ids = expired.map((entry) => entry.member);
      const records = await this.#requests.getMany(ids);
      // A request reopened since it closed keeps its record; only its stale closed entry goes.
      const gone = records.filter(
        (record): record is RequestRecord => record !== undefined && !isOpen(record),
      );
      if (gone.length > 0) {
        await this.#requests.deleteMany(gone.map((record) => record.id));
        const runIds = gone.flatMap((record) => record.runs.map((run) => run.runId));
        if (runIds.length > 0) await this.#runIndex.deleteMany(runIds);
        await this.#originIndex.deleteMany(gone.map((record) => record.origin.messageId));
      }
      await this.#sets.apply([
        ...ids.map((member) => ({ set: CLOSED_SET, member, score: null })),
        ...gone.map((record) => ({ set: keptSetOf(record.conversationKey), member: record.id, score: null })),
      ]);
      deleted += gone.length;
      if (expired.length < SWEEP_BATCH) return deleted;
    }
  }

  /** The open records behind index entries of `set`; entries whose record is gone or closed are removed. */
  async #openListed(set: string, entries: ReadonlyArray<{ member: string }>): Promise<RequestRecord[]> {
    if (entries.length === 0) return [];
    const ids = entries.map((entry) => entry.member);
    const records = await this.#requests.getMany(ids);
    const open: RequestRecord[] = [];
    const stale: string[] = [];
    records.forEach((record, index) => {
      if (record && isOpen(record)) open.push(record);
      else stale.push(ids[index] as string);
    });
    if (stale.length > 0) await this.#sets.apply(stale.map((member) => ({ set, member, score: null })));
    return open;
  }

  #newRequest(
    input: { conversationKey: string; origin: RequestRecord["origin"]; agent: string | null },
    runs: readonly RunRecord[],
  ): RequestRecord {
    const now = this.#clock.now();
    return {
      id: `req-${randomUUID()}`,
      conversationKey: input.conversationKey,
      origin: input.origin,
      agent: input.agent,
      status: "active",
      createdAt: now,
      updatedAt: now,
      waitingSince: now,
      noticeSent: false,
      runs,
    };
  }

  async #save(request: RequestRecord, previous: RequestRecord | undefined): Promise<void> {
    const changes = indexChanges(request, previous, this.#timeouts);
    await writeInOrder(
      this.#store,
      () => this.#requests.set(request.id, request),
      async () => {
        if (changes.length > 0) await this.#sets.apply(changes);
      },
    );
  }
}

export type { ConversationRef };
