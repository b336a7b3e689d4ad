import type { Command } from "../commands/command.ts";
import type { ApprovalDecider, ApprovalPrompt } from "./approvals.ts";
import type { AdapterAttachments, AdapterFiles } from "./files.ts";
import type { TeamIdentities } from "./identity.ts";
import type { InboundMessage, OutboundMessage, PostedMessage } from "./messages.ts";

/** What an adapter needs to offer a chat command in the platform's own way. */
export type CommandSummary = Pick<Command, "name" | "usage" | "summary">;

import type { ConversationRef } from "./ref.ts";

/**
 * How an adapter shows an answer while it is written. Present only when streaming is on for the
 * platform; the engine then posts the first text at once and edits it as it grows.
 */
export interface AdapterStreaming {
  /** Least time between two calls that change the thread (posts, edits, appends): the rate limit. */
  readonly editIntervalMs: number;
  /** Progress lines ("billing is checking your invoice…") are shown at all. */
  readonly progress: boolean;
  /**
   * A platform's own append-only stream for the first message of an answer (Slack's
   * chat.startStream). Without it the engine posts and edits.
   */
  openStream?(message: OutboundMessage): NativeTextStream;
}

/** An append-only message the platform renders as it grows; after `stop` it is an ordinary message. */
export interface NativeTextStream {
  /** Appends markdown; resolves with the message once the platform has created it. */
  append(markdown: string): Promise<PostedMessage | undefined>;
  /** Ends the stream; the message can be edited from then on. */
  stop(): Promise<PostedMessage>;
}

export interface AdapterLimits {
  /** Longest markdown text one posted message may carry; the engine chunks to this. */
  readonly maxMessageLength: number;
}

/** Readable names of a conversation's place, as people on the platform see them. */
export interface PlaceNames {
  /** The room or channel: `#general`, `Support room`, `direct message`. */
  readonly room?: string;
  /** The thread's own name, where threads have one (Discord). */
  readonly thread?: string;
}

/** What an adapter's credential check found besides problems (which it throws). */
export interface AdapterCheck {
  readonly warnings: readonly string[];
  /** Facts worth an operator's eye that are not problems (Matrix: the encryption device and its keys). */
  readonly notes?: readonly string[];
}

/** See Adapter.checkSendOnly. */
export interface SendOnlyCheck {
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

/** Where an adapter hands every inbound message; resolves when the engine has accepted it. */
export type InboundSink = (message: InboundMessage) => Promise<void>;

/**
 * A platform connection. It maps platform places to conversations and back, and nothing else:
 * no gating, dedupe, routing or chunking decisions live here.
 */
export interface Adapter {
  /** The platform prefix of every conversation key this adapter owns. */
  readonly platform: string;
  readonly limits: AdapterLimits;
  /**
   * Verifies credentials and reachability without starting (used by `switchboard doctor`).
   * Throws an error whose message tells the operator what to fix; resolves with warnings about
   * settings that work but will not do what the operator asked for (encryption that cannot run).
   */
  check?(): Promise<AdapterCheck>;
  /**
   * The command prefix people can type on this platform, named in help texts (`!` on Matrix, whose
   * clients keep `/` for their own commands). Used when the engine accepts it; default: the
   * engine's first prefix.
   */
  readonly commandPrefix?: string;
  /**
   * False when this platform's inbound messages never name a message they reply to (`replyTo`):
   * on Slack a reply sits in its thread, and the thread is the conversation. The bot's messages
   * then need no entry in the message index (one store write per posted message). Default: true.
   */
  readonly repliesNameTheirTarget?: boolean;
  /**
   * The engine's chat commands, before `start`: adapters with native commands (Discord slash
   * commands, Slack command words) offer every one of them, so none is missing on a platform.
   */
  useCommands?(commands: readonly CommandSummary[]): void;
  /**
   * Where Approve / Deny presses go, before `start`: adapters that render `approval` prompts as
   * buttons or reactions report presses to it and show its answer.
   */
  useApprovals?(decider: ApprovalDecider): void;
  /**
   * The faces the team's agents post under (their `display`), before `start` or `check`: adapters
   * that show them get ready (per-message names, webhooks) and `check` says what the platform will
   * not allow. Messages then carry the speaking agent's `identity`.
   */
  useIdentities?(identities: TeamIdentities): void;
  /**
   * The ids access lists name for where a message was written (`access.<platform>.places` /
   * `spaces`): its channel or room (a thread's channel), and its workspace, server or homeserver.
   * Absent: the conversation key's first part is the place.
   */
  accessPlace?(message: InboundMessage): { readonly place: string; readonly space?: string };
  start(sink: InboundSink): Promise<void>;
  /**
   * True when the platform allows the inbound connection once per bot (the Matrix sync, the Discord
   * gateway): in a cluster only the elected ingress starts it; the others stand by.
   */
  readonly exclusiveInbound?: boolean;
  /**
   * Scale-out workers: makes `post`, `edit`, typing… usable without receiving anything (no events
   * server, gateway or sync connection; another process holds those). `stop` ends it. Absent: the
   * adapter cannot run in a worker.
   */
  startSendOnly?(): Promise<void>;
  /**
   * What `startSendOnly` would refuse (`problems`: it throws with that message) and what a worker
   * cannot deliver on this platform (`warnings`), read from the configuration alone, without any
   * request (used by `switchboard doctor --role worker`).
   */
  checkSendOnly?(): SendOnlyCheck;
  stop(): Promise<void>;
  /** Post one chunk into the conversation's thread, as a reply to `replyTo` when given. */
  post(message: OutboundMessage): Promise<PostedMessage>;
  /**
   * The message posted earlier with this idempotency key, if the platform has it. Adapters whose
   * posts are not idempotent by themselves implement it, so recovery after a crash never posts twice.
   */
  findPosted?(conversation: ConversationRef, idempotencyKey: string): Promise<PostedMessage | undefined>;
  /**
   * Replace the text of a message this adapter posted (one chunk: it fits `maxMessageLength`).
   * With `approval`, the message becomes the prompt that asks for it (a streamed answer's last chunk).
   */
  edit?(posted: PostedMessage, text: string, approval?: ApprovalPrompt): Promise<void>;
  /**
   * A prompt's buttons (or reactions) give way to the outcome after a decision made elsewhere — typed
   * /approve, the console. `text` is the prompt's markdown as it was posted.
   */
  showDecision?(
    prompt: PostedMessage,
    text: string,
    decision: { approved: boolean; by: string },
  ): Promise<void>;
  /** Answers appear as they are written (needs `edit`). */
  readonly streaming?: AdapterStreaming;
  /**
   * Shows what the bot is doing in the platform's own working indicator (Slack's assistant status).
   * False when it cannot here: progress is then an italic line under the streamed text.
   */
  showProgress?(conversation: ConversationRef, status: string): Promise<boolean>;
  /**
   * Readable names of the conversation's place, for the operator console; undefined when the
   * platform does not say (no permission, not cached). At most one platform call; callers cache.
   */
  describePlace?(conversation: ConversationRef): Promise<PlaceNames | undefined>;
  /**
   * The person's time zone from their platform profile (Slack's `users.info` tz), as an IANA name;
   * undefined when the platform keeps none. Callers cache it per person.
   */
  userTimeZone?(userId: string): Promise<string | undefined>;
  /**
   * Where posts the bot makes on its own (a schedule's) go for a conversation made by `startedBy`:
   * the conversation itself, or — when `startedBy` is the top-level message that started it — the
   * channel or room it is in, as a new message there. `channel` names that channel or room as a
   * conversation of its own (a digest reads the conversations under it). Absent: both are the
   * conversation itself.
   */
  placeForPosts?(
    conversation: ConversationRef,
    startedBy: string | undefined,
  ): { readonly post: ConversationRef; readonly channel: ConversationRef };
  /** Show (or stop showing) that the bot is working in this conversation. */
  setTyping?(conversation: ConversationRef, active: boolean): Promise<void>;
  /** Downloads the files people send; absent: attachments on this platform are never read. */
  readonly attachments?: AdapterAttachments;
  /** Sends files natively (uploads); absent: a file the team made is announced by name only. */
  readonly files?: AdapterFiles;
}
