import type { Command } from "@switchboard/core";
import type { PlaceNames } from "@switchboard/core/adapter";
import type { BlobRef, PairingApproval, PendingPairing } from "@switchboard/core/host";
import type {
  ActiveAgentStore,
  AgentSummary,
  ArchiveStore,
  Handoff,
  MemoryBook,
  RequestTracker,
  TaskRecord,
  TaskStepEntry,
} from "@switchboard/core/records";
import type { ConversationLog, TranscriptFile } from "../activity/conversation-log.ts";
import type { LiveFeed } from "../activity/live-feed.ts";
import type { WebAdapter } from "../adapter/web-adapter.ts";
import type { HealthReport } from "../health/health-report.ts";
import type { TimelineStepSource } from "../insight/run-timeline.ts";
import type { UsageSource } from "../insight/usage-report.ts";
import type { ScheduleSource } from "./schedule-source.ts";

/** Everything the console reads and the few things it may do; wired once by the CLI. */
export interface ConsoleDeps {
  /** Checked on every request; never rendered. */
  readonly token: string;
  /** Mark the session cookie `Secure` (set when the console is served behind HTTPS). */
  readonly secureCookie?: boolean;
  readonly log: ConversationLog;
  readonly feed: LiveFeed;
  readonly chat: WebAdapter;
  readonly team: { readonly activeAgents: ActiveAgentStore; agents(): AgentSummary[] };
  readonly requests: RequestTracker;
  /** Approves or denies a waiting action as an admin. */
  readonly decide: (requestId: string, decision: { approved: boolean; by: string }) => Promise<void>;
  /** The chat commands (`reset`, `supervisor`, `forget`) the conversation page's actions run. */
  readonly commands: { get(name: string): Command | undefined };
  /** Absent when memory is off. */
  readonly memory?: { readonly book: MemoryBook; readonly archive: ArchiveStore };
  readonly steps: TimelineStepSource;
  readonly usage: UsageSource;
  readonly health: () => Promise<HealthReport>;
  /** Readable names of a conversation's place, where its adapter knows them (cached there). */
  readonly placeNames?: (key: string) => Promise<PlaceNames | undefined>;
  /** A turn is running in this conversation now (in this process). */
  readonly isWorking: (key: string) => boolean;
  /** What the running turn says it is doing, where the platform showed it as status. */
  readonly workStatus?: (key: string) => string | undefined;
  /** Threads a person has taken over, and handing one back to the bot (as an admin). */
  readonly handoffs?: {
    open(): Promise<readonly Handoff[]>;
    release(key: string): Promise<string>;
  };
  /** Background tasks; absent when the process has none to show. */
  readonly tasks?: TaskSource;
  /** Files in transcripts and the chat's upload control; absent when attachments are off. */
  readonly files?: ConsoleFiles;
  /** Schedules and their fires, and their controls (as an admin); absent: no Schedules page data. */
  readonly schedules?: ScheduleSource;
  /** DM pairing: codes waiting, people let in, approving and revoking (as an admin). */
  readonly access?: AccessSource;
  /** Told about a request the console failed to answer (the log). */
  readonly onError?: (error: Error, path: string) => void;
}

/** How the console operator appears on records and in threads. */
export const OPERATOR = { id: "console-operator", displayName: "console operator" } as const;

/** Background tasks as the console reads and steers them (the operator counts as an admin). */
export interface TaskSource {
  newest(limit: number): Promise<TaskRecord[]>;
  get(id: string): Promise<TaskRecord | undefined>;
  steps(task: TaskRecord): Promise<TaskStepEntry[]>;
  /** The sentence a person would read in chat: done, deferred to the running step, or refused. */
  control(id: string, action: "pause" | "resume" | "cancel" | "steer", guidance: string): Promise<string>;
}

/** DM pairing as the Access page reads and changes it; each change answers with the sentence to show. */
export interface AccessSource {
  pending(): Promise<readonly PendingPairing[]>;
  approved(): Promise<readonly PairingApproval[]>;
  approve(code: string, by: string): Promise<string>;
  revoke(platform: string, userId: string): Promise<string>;
}

/** The files the console shows (through its own token guard) and takes in its chat. */
export interface ConsoleFiles {
  /** A kept file's bytes; undefined once it is gone (retention, /forget). */
  open(blob: BlobRef): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** A person's files as they were downloaded and typed, by platform and message id (empty: not yet). */
  downloaded(platform: string, messageId: string): Promise<readonly TranscriptFile[]>;
  /** The largest file the chat takes, and how many one message may carry. */
  readonly maxBytes: number;
  readonly maxPerMessage: number;
}
