/**
 * The operator console's wiring: the web chat adapter, the recording of every adapter's traffic,
 * the recent-problems log and, once the engine exists, the console's routes under `/console`.
 */
import type { RequestListener } from "node:http";
import {
  decodeConversationKey,
  type Engine,
  type Logger,
  type Memory,
  type RequestTracking,
  type Schedules,
  type Store,
  systemClock,
  type Tasks,
  type Team,
} from "@switchboard/core";
import type { Adapter, PlaceNames } from "@switchboard/core/adapter";
import { DEFAULT_USAGE_CONFIG, stepsConfigSchema } from "@switchboard/core/config";
import {
  type AttachmentReader,
  type BlobStore,
  blobId,
  formatCode,
  type HumanHandoffs,
  type Pairings,
  type TaskObserver,
  type WorkQueueCounts,
} from "@switchboard/core/host";
import { RunStepsLog, type RunStepsReader, UsageBook } from "@switchboard/core/records";
import {
  type ConsoleFiles,
  type ConsoleTokenResolution,
  ConversationLog,
  consoleRequestListener,
  createConsoleApp,
  createWebAdapter,
  healthReport,
  LiveFeed,
  OPERATOR,
  PlatformActivity,
  RecentProblems,
  recordedAdapter,
  resolveConsoleToken,
  stepsFromLog,
  usageFromBook,
  type WebAdapter,
} from "@switchboard/web";
import { cliVersion } from "../version.ts";

export const CONSOLE_PATH = "/console";

export interface ConsoleParts {
  readonly engine: Engine;
  readonly team: Team;
  readonly tracking: RequestTracking;
  readonly memory: Memory | undefined;
  readonly tasks?: Tasks;
  readonly humans?: HumanHandoffs;
  /**
   * The run-steps log and usage roll-ups the process records into. Absent: the console opens its
   * own readers over the same store, which see everything any process recorded there.
   */
  readonly steps?: RunStepsReader;
  readonly usage?: UsageBook;
  /** DM pairing codes and approvals, for the Access page. */
  readonly pairings?: Pairings;
  /** Schedules, their fires and their controls, for the Schedules page. */
  readonly schedules?: Schedules;
  /** Scale-out: the work queue's drain jobs by state, for the health page. */
  readonly workQueue?: () => Promise<WorkQueueCounts>;
  /** Files in transcripts and the chat's uploads; absent when attachments are off. */
  readonly files?: {
    readonly reader: AttachmentReader;
    readonly blobs: BlobStore;
    readonly maxBytes: number;
    readonly maxPerMessage: number;
  };
}

export interface MountedConsole {
  readonly prefix: string;
  readonly listener: RequestListener;
  readonly token: ConsoleTokenResolution;
}

export class OperatorConsole {
  readonly chat: WebAdapter = createWebAdapter();
  readonly feed = new LiveFeed();
  readonly activity = new PlatformActivity();
  readonly problems = new RecentProblems({ onProblem: () => this.feed.publish({ topic: "health" }) });
  /** Tells open Tasks pages that a task moved (steps here; other processes' steps by polling). */
  readonly taskObserver: TaskObserver = {
    stepFinished: () => this.feed.publish({ topic: "tasks" }),
    ended: () => this.feed.publish({ topic: "tasks" }),
  };
  /** The process logger, with warnings and errors also kept for the health page. */
  readonly logger: Logger;
  readonly #startedAt = Date.now();
  #log: ConversationLog | undefined;
  #store: Store | undefined;
  /** The engine's adapters by platform, for readable place names. */
  readonly #adapters = new Map<string, Adapter>();

  constructor(logger: Logger) {
    this.logger = this.problems.logger(logger);
  }

  /** Opens the console's records in the process's store. Call before `record`. */
  open(store: Store): void {
    this.#store = store;
    this.#log = new ConversationLog(store, {
      onChange: (key) => this.feed.publish({ topic: "conversations", key }),
    });
  }

  /** The adapter the engine gets: the same one, with its traffic recorded for the console. */
  record(adapter: Adapter): Adapter {
    this.#adapters.set(adapter.platform, adapter);
    return recordedAdapter(adapter, {
      log: this.#requireLog(),
      feed: this.feed,
      activity: this.activity,
      logger: this.logger,
    });
  }

  async mount(parts: ConsoleParts, configuredToken: string | undefined): Promise<MountedConsole> {
    const store = this.#requireStore();
    const token = await resolveConsoleToken(store, configuredToken);
    const app = createConsoleApp({
      token: token.token,
      log: this.#requireLog(),
      feed: this.feed,
      chat: this.chat,
      team: parts.team,
      requests: parts.tracking.tracker,
      decide: (requestId, decision) => parts.tracking.decide(requestId, decision),
      commands: parts.engine.commands,
      ...(parts.memory ? { memory: { book: parts.memory.book, archive: parts.memory.archive } } : {}),
      steps: stepsFromLog(
        parts.steps ??
          new RunStepsLog(store, {
            retentionDays: stepsConfigSchema.parse({}).retentionDays,
            clock: systemClock,
          }),
      ),
      usage: usageFromBook(
        parts.usage ??
          new UsageBook(store, { retentionDays: DEFAULT_USAGE_CONFIG.retentionDays, clock: systemClock }),
      ),
      health: () =>
        healthReport({
          version: cliVersion(),
          startedAt: this.#startedAt,
          atomic: store.atomic,
          activity: this.activity,
          problems: this.problems,
          engine: () => parts.engine.health(),
          ...(parts.workQueue ? { workQueue: parts.workQueue } : {}),
        }),
      ...(parts.schedules ? { schedules: scheduleSource(parts.schedules) } : {}),
      ...(parts.pairings ? { access: accessSource(parts.pairings) } : {}),
      ...(parts.tasks ? { tasks: taskSource(parts.tasks) } : {}),
      ...(parts.humans
        ? {
            handoffs: {
              open: () => (parts.humans as HumanHandoffs).open(),
              release: (key: string) => (parts.humans as HumanHandoffs).release(key, OPERATOR.displayName),
            },
          }
        : {}),
      ...(parts.files ? { files: consoleFiles(parts.files) } : {}),
      placeNames: (key) => this.#placeNames(key),
      isWorking: (key) => this.activity.runningTurns().some((turn) => turn.key === key),
      workStatus: (key) => this.activity.statusOf(key),
      onError: (error, path) => this.logger.error("console request failed", { path, error }),
    });
    return { prefix: CONSOLE_PATH, listener: consoleRequestListener(app), token };
  }

  /** A page must render whatever a platform says: a failed lookup shows the ids. */
  async #placeNames(key: string): Promise<PlaceNames | undefined> {
    try {
      const conversation = decodeConversationKey(key);
      return await this.#adapters.get(conversation.platform)?.describePlace?.(conversation);
    } catch (error) {
      this.logger.debug("could not name a conversation's place", { key, error });
      return undefined;
    }
  }

  #requireLog(): ConversationLog {
    if (!this.#log) throw new Error("OperatorConsole.open(store) was not called");
    return this.#log;
  }

  #requireStore(): Store {
    if (!this.#store) throw new Error("OperatorConsole.open(store) was not called");
    return this.#store;
  }
}

function consoleFiles(files: NonNullable<ConsoleParts["files"]>): ConsoleFiles {
  return {
    open: (blob) => files.blobs.open(blob),
    downloaded: async (platform, messageId) =>
      (await files.reader.filesOf(platform, messageId)).map((file) => ({
        name: file.name,
        mediaType: file.mediaType,
        size: file.size,
        blob: blobId(file.blob),
      })),
    maxBytes: files.maxBytes,
    maxPerMessage: files.maxPerMessage,
  };
}

function taskSource(tasks: Tasks) {
  return {
    newest: (limit: number) => tasks.store.newest(limit),
    get: (id: string) => tasks.store.get(id),
    steps: (task: Parameters<Tasks["store"]["steps"]>[0]) => tasks.store.steps(task),
    async control(id: string, action: "pause" | "resume" | "cancel" | "steer", guidance: string) {
      const result = await tasks.controls.control(
        id,
        action,
        { id: OPERATOR.displayName, admin: true },
        guidance,
      );
      return result.sentence;
    },
  };
}

/** The Access page's view of DM pairing: the console acts as an admin. */
function accessSource(pairings: Pairings) {
  return {
    pending: () => pairings.pending(),
    approved: () => pairings.approved(),
    approve: async (code: string, by: string) => {
      const result = await pairings.approve(code, by);
      if (result.outcome === "approved")
        return `Approved: ${result.approval.userName ?? result.approval.userId} (${result.approval.platform}) can talk to the bot now.`;
      return result.outcome === "expired"
        ? `Code ${formatCode(result.pending.code)} has expired; the person's next message gets a new one.`
        : `No pairing code ${code} is waiting.`;
    },
    revoke: async (platform: string, userId: string) => {
      const revoked = await pairings.revoke(platform, userId);
      return revoked
        ? `Revoked: ${revoked.userName ?? revoked.userId} (${platform}) gets a new code at their next message.`
        : `${platform} user ${userId} was not approved.`;
    },
  };
}

/** The Schedules page's view of the process's schedules: the console acts as an admin. */
function scheduleSource(schedules: Schedules) {
  return {
    newest: (limit: number) => schedules.store.newest(limit),
    fires: (id: string, limit: number) => schedules.store.fires(id, limit),
    control: async (id: string, action: "pause" | "resume" | "cancel", by: string) =>
      (await schedules.controls.control(id, action, { id: by, admin: true })).sentence,
  };
}
