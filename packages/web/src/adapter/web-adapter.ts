import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import type { ConversationRef, OutboundMessage, PostedMessage } from "@switchboard/core";
import {
  type Adapter,
  type AdapterAttachments,
  type AdapterCheck,
  type AdapterFiles,
  type AdapterStreaming,
  adapterStreaming,
  type InboundSink,
} from "@switchboard/core/adapter";
import { type WebFileStore, WebFiles, type WebUpload } from "./web-files.ts";

export const WEB_PLATFORM = "web";

/** `@bot` or `@switchboard` anywhere in the text addresses the bot in a shared (`#name`) thread. */
const MENTION = /(^|\s)@(bot|switchboard)\b/i;

export interface WebAdapterConfig {
  /** Longest answer shown as one message; longer ones are split by the engine. */
  readonly maxMessageLength?: number;
  /** Answers appear in the chat as they are written (default on). */
  readonly streaming?: boolean;
  /**
   * Least time between two updates of a streamed answer. Nothing limits the rate here but the
   * browser: every update re-renders the open chat pages.
   */
  readonly streamEditIntervalMs?: number;
}

/** A few updates a second read as live text without re-rendering the page for every word. */
const DEFAULT_STREAM_EDIT_INTERVAL_MS = 300;

/** One chat message typed in the console's chat page. */
export interface WebChatInput {
  /** The browser session (a random id kept in a cookie). */
  readonly session: string;
  /** The thread within the session: `main`, a named thread, or `#name` for a shared channel. */
  readonly thread: string;
  readonly text: string;
  readonly author: { readonly id: string; readonly displayName: string };
  /** A bot message id this message answers, outside any thread. */
  readonly replyTo?: string;
  /** Files picked in the upload control (needs `useFiles`). */
  readonly files?: readonly WebUpload[];
}

export interface WebPost {
  readonly id: string;
  readonly conversation: ConversationRef;
  readonly text: string;
  readonly replyTo?: string;
  readonly agent?: string;
}

interface WebAdapterEvents {
  post: [WebPost];
  edit: [PostedMessage, string];
  typing: [ConversationRef, boolean];
}

export class WebAdapterNotStartedError extends Error {
  constructor() {
    super("the web chat is not running yet");
    this.name = "WebAdapterNotStartedError";
  }
}

/**
 * The console's chat: a platform whose places are browser sessions and their threads, so an
 * operator talks to the team through the same pipeline as Matrix, Discord and Slack users.
 * Conversation key: `web:<session>:<thread>`. Threads are direct conversations; a thread named
 * `#name` behaves as a group channel, where a mention starts a thread of its own (`#name/<id>`).
 */
export class WebAdapter implements Adapter {
  readonly platform = WEB_PLATFORM;
  readonly limits: { maxMessageLength: number };
  readonly streaming: AdapterStreaming | undefined;
  readonly attachments: AdapterAttachments;
  readonly files: AdapterFiles;
  readonly #files = new WebFiles();
  readonly #events = new EventEmitter<WebAdapterEvents>();
  readonly #idPrefix = randomBytes(3).toString("hex");
  #sequence = 0;
  #sink: InboundSink | undefined;

  constructor(config: WebAdapterConfig = {}) {
    this.limits = { maxMessageLength: config.maxMessageLength ?? 8_000 };
    this.streaming = adapterStreaming({
      streaming: config.streaming ?? true,
      streamEditIntervalMs: config.streamEditIntervalMs ?? DEFAULT_STREAM_EDIT_INTERVAL_MS,
      progress: true,
    });
    // Every open chat page listens; the default cap of 10 would warn with a dozen tabs.
    this.#events.setMaxListeners(0);
    this.attachments = this.#files.attachments;
    this.files = this.#files.files;
  }

  /** Lets people upload files in the chat, kept in `store.blobs` (absent: the chat takes text only). */
  useFiles(store: WebFileStore): void {
    this.#files.use(store);
  }

  /** Whether the chat takes uploads. */
  get takesFiles(): boolean {
    return this.#files.enabled;
  }

  /** The chat lives in this process: reachable whenever the process is. */
  async check(): Promise<AdapterCheck> {
    return { warnings: [] };
  }

  async start(sink: InboundSink): Promise<void> {
    this.#sink = sink;
  }

  async stop(): Promise<void> {
    this.#sink = undefined;
  }

  /** Hands a typed message to the engine; resolves with its message id once accepted. */
  async send(input: WebChatInput): Promise<string> {
    const sink = this.#sink;
    if (!sink) throw new WebAdapterNotStartedError();
    const id = `w-${this.#nextId()}`;
    const mentionsBot = MENTION.test(input.text);
    const inChannel = input.thread.startsWith("#") && !input.thread.includes("/");
    const conversation = webConversation(
      input.session,
      inChannel && mentionsBot && !input.replyTo ? `${input.thread}/${id}` : input.thread,
    );
    const attachments = input.files?.length ? await this.#files.keep(conversation, input.files) : [];
    await sink({
      id,
      conversation,
      author: { id: input.author.id, displayName: input.author.displayName, isBot: false, isSelf: false },
      text: input.text,
      isDirect: !input.thread.startsWith("#"),
      mentionsBot,
      isEdit: false,
      sentAt: Date.now(),
      ...(input.replyTo ? { replyTo: input.replyTo } : {}),
      ...(attachments.length > 0 ? { attachments } : {}),
    });
    return id;
  }

  async post(message: OutboundMessage): Promise<PostedMessage> {
    const id = `wb-${this.#nextId()}`;
    this.#events.emit("post", {
      id,
      conversation: message.conversation,
      text: message.text,
      ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      ...(message.agent ? { agent: message.agent } : {}),
    });
    return { id, conversation: message.conversation };
  }

  /** Progress shows as the chat's working line ("billing is checking your invoice…"), not in the text. */
  async showProgress(_conversation: ConversationRef, _status: string): Promise<boolean> {
    return true;
  }

  /** A streamed answer grows (or is replaced by its final text). */
  async edit(posted: PostedMessage, text: string): Promise<void> {
    this.#events.emit("edit", posted, text);
  }

  async setTyping(conversation: ConversationRef, active: boolean): Promise<void> {
    this.#events.emit("typing", conversation, active);
  }

  /** Calls `listener` with every message the bot posts; returns the function that stops it. */
  onPost(listener: (post: WebPost) => void): () => void {
    this.#events.on("post", listener);
    return () => this.#events.off("post", listener);
  }

  /** Calls `listener` with every change to a message the bot posted (a streamed answer growing). */
  onEdit(listener: (posted: PostedMessage, text: string) => void): () => void {
    this.#events.on("edit", listener);
    return () => this.#events.off("edit", listener);
  }

  onTyping(listener: (conversation: ConversationRef, active: boolean) => void): () => void {
    this.#events.on("typing", listener);
    return () => this.#events.off("typing", listener);
  }

  #nextId(): string {
    this.#sequence += 1;
    return `${this.#idPrefix}${this.#sequence}`;
  }
}

export function webConversation(session: string, thread: string): ConversationRef {
  return { platform: WEB_PLATFORM, path: [session, thread] };
}

export function createWebAdapter(config: WebAdapterConfig = {}): WebAdapter {
  return new WebAdapter(config);
}
