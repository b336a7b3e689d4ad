/**
 * The sweepers a single process runs on timers, run by two workers of a cluster on one Redis as
 * BullMQ rounds: a request due its "still working" notice gets it once, and an idle memory session
 * is archived once, however many workers take rounds.
 */

import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { createMemory, Engine, type Memory, openStore, RequestTracking, type Store } from "@switchboard/core";
import { requestsConfigSchema } from "@switchboard/core/config";
import {
  type ArchivedSession,
  BlobRetention,
  type RecoveryReport,
  spaceOf,
  writeBytes,
} from "@switchboard/core/host";
import { createMemoryLogger, echoResponder, RecordingAdapter, waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { FolderBlobStore } from "../../../core/src/attachments/blobs/folder-blob-store.ts";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  tempDirectory,
  uniqueRedisPrefix,
} from "../../../core/src/store/test-backends.ts";
import { bullConnectionFor } from "./bullmq-connection.ts";
import { ClusterSweeps } from "./cluster-sweeps.ts";
import { clusterSweepsOf } from "./sweep-rounds.ts";

const KEY = "test:dm-1";
const MINUTE = 60_000;
const conversation = { platform: "test", path: ["dm-1"] };
const author = { id: "user-1", isBot: false, isSelf: false };

/** One worker process: its own store connection, engine, request tracking, memory and sweeps. */
interface Worker {
  readonly store: Store;
  readonly adapter: RecordingAdapter;
  readonly engine: Engine;
  readonly tracking: RequestTracking;
  readonly memory: Memory;
  readonly archived: ArchivedSession[];
  /** Memory rounds this worker ran. */
  readonly memoryRounds: () => number;
  /** Files this worker's rounds deleted. */
  readonly filesDeleted: () => number;
  readonly sweeps: ClusterSweeps;
}

describeWithRedis("the sweepers as cluster rounds", () => {
  let prefix: string;
  let workers: Worker[];
  let now: number;
  /** The folder every worker keeps files in (a shared volume in a real cluster). */
  let folder: Awaited<ReturnType<typeof tempDirectory>>;
  const clock = { now: () => now };
  // The checkpointer every worker reaches (Redis or Postgres in a real cluster).
  const checkpointer = new MemorySaver();

  beforeEach(() => {
    prefix = uniqueRedisPrefix("sweep-rounds");
    workers = [];
    now = Date.now();
  });
  beforeEach(async () => {
    folder = await tempDirectory();
  });
  afterEach(async () => {
    await folder.remove();
  });
  afterEach(async () => {
    for (const worker of workers) {
      await worker.sweeps.close();
      await worker.engine.stop();
      await worker.tracking.close();
      await worker.memory.close();
      await worker.store.close();
    }
    await removeRedisKeys(prefix);
  });

  const startWorker = async (): Promise<Worker> => {
    const storeUrl = `${TEST_REDIS_URL}/?prefix=${prefix}`;
    const store = await openStore(storeUrl);
    const logger = createMemoryLogger();
    const adapter = new RecordingAdapter();
    const tracking = new RequestTracking({
      store,
      clock,
      logger,
      // Rounds every 100 ms; in one process the timer would run them at this pace in every worker.
      config: requestsConfigSchema.parse({ noticeAfterSeconds: 60, sweepIntervalSeconds: 0.1 }),
    });
    const engine = new Engine({ store, adapters: [adapter], responder: echoResponder(), logger });
    await engine.start();
    tracking.bind(engine, { sweep: false });
    // Idle after 3 seconds: the sweeper's interval is then its floor, one second.
    const memory = createMemory({
      store,
      storeUrl,
      checkpointer,
      clock,
      logger,
      config: { idleMinutes: 0.05 },
    });
    memory.attach({ conversationState: async () => ({ messages: [] }), replaceHistory: async () => {} });
    const archived: ArchivedSession[] = [];
    let rounds = 0;
    const countingMemory = {
      sweepIntervalMs: memory.sweepIntervalMs,
      sweep: async () => {
        rounds += 1;
        const sessions = await memory.sweep();
        archived.push(...sessions);
        return sessions;
      },
    };
    const retention = new BlobRetention({
      blobs: new FolderBlobStore(join(folder.path, "attachments")),
      retainDays: 1,
      clock,
      logger,
      intervalMs: 100,
    });
    let deleted = 0;
    const countingFiles = {
      intervalMs: retention.intervalMs,
      sweep: async () => {
        const count = await retention.sweep();
        deleted += count;
        return count;
      },
    };
    const idleEngine = {
      drainScheduled: async () => "drained" as const,
      queuedWork: async () => 0,
      runRecoveryRound: async (): Promise<RecoveryReport> => ({
        at: now,
        queuedConversations: 0,
        oldestQueueAgeMs: 0,
        picked: 0,
      }),
    };
    const sweeps = new ClusterSweeps({
      bull: bullConnectionFor(storeUrl, "/"),
      sweeps: clusterSweepsOf(
        idleEngine,
        {
          tracking,
          memory: countingMemory,
          humans: { sweepIntervalMs: 60_000, sweep: async () => 0 },
          tasks: {
            healthIntervalMs: 60_000,
            healthRound: async () => ({ announced: 0, stuck: 0, expired: 0, reported: 0, deleted: 0 }),
          },
          files: countingFiles,
          schedules: { pollMs: 60_000, fireRound: async () => ({ fired: 0, skipped: 0, deleted: 0 }) },
        },
        100,
      ),
      jobLockMs: 5_000,
      logger,
    });
    const worker = {
      store,
      adapter,
      engine,
      tracking,
      memory,
      archived,
      memoryRounds: () => rounds,
      filesDeleted: () => deleted,
      sweeps,
    };
    workers.push(worker);
    return worker;
  };

  const notices = () =>
    workers.flatMap((worker) => worker.adapter.posts).filter((post) => post.text.startsWith("Still working"));
  const archivedSessions = () => workers.flatMap((worker) => worker.archived);
  const memoryRounds = () => workers.reduce((sum, worker) => sum + worker.memoryRounds(), 0);

  it("posts a due request's notice once and archives an idle session once, whichever worker takes the round", async () => {
    const [first, second] = [await startWorker(), await startWorker()];
    await first!.tracking.tracker.open({
      conversationKey: KEY,
      origin: { conversation, messageId: "user-msg-1", authorId: author.id },
      agent: null,
    });
    // A turn memory recorded in the first worker: its session is live in the shared store.
    first!.memory.observer.afterDelivery?.(
      {
        key: KEY,
        conversation,
        message: {
          id: "user-msg-1",
          conversation,
          author,
          text: "what is my balance?",
          isDirect: true,
          mentionsBot: false,
          isEdit: false,
          sentAt: now,
        },
        text: "what is my balance?",
        signal: new AbortController().signal,
        workId: "work-1",
      },
      { text: "It is 12 euros." },
    );
    await first!.memory.idle();

    await Promise.all([first!.sweeps.start(), second!.sweeps.start()]);
    // Past the notice time and the idle time at once.
    now += 2 * MINUTE;
    await waitFor("the notice", () => notices().length > 0, 10_000);
    await waitFor("the archived session", () => archivedSessions().length > 0, 10_000);
    // Two more memory rounds (one a second) and many more request rounds, in either worker.
    const after = memoryRounds();
    await waitFor("two more memory rounds", () => memoryRounds() >= after + 2, 10_000);

    expect(notices()).toHaveLength(1);
    expect(notices()[0]).toMatchObject({ conversation, replyTo: "user-msg-1" });
    expect(archivedSessions().map((session) => session.conversationKey)).toEqual([KEY]);
  });

  it("deletes files past their retention from the shared folder in rounds, once", async () => {
    const [first, second] = [await startWorker(), await startWorker()];
    const blobs = new FolderBlobStore(join(folder.path, "attachments"));
    const written = await writeBytes(blobs, spaceOf(KEY), new TextEncoder().encode("old report"));
    if (written.kind !== "stored") throw new Error("not stored");
    await Promise.all([first!.sweeps.start(), second!.sweeps.start()]);
    // Two days on: the file is a day past `retainDays: 1`.
    now += 2 * 24 * 60 * MINUTE;
    const deleted = () => first!.filesDeleted() + second!.filesDeleted();
    await waitFor("the old file deleted", () => deleted() > 0, 10_000);
    expect(await blobs.has(written.ref)).toBe(false);
    expect(deleted()).toBe(1);
  });
});
