import type Keyv from "keyv";
import type { BlobRef } from "../attachments/blobs/blob-store.ts";
import type { OutboundFile } from "../attachments/stored-attachment.ts";
import { awayFromCpu } from "../capacity/cpu-slots.ts";
import type { Adapter, AdapterStreaming, NativeTextStream } from "../conversation/adapter.ts";
import type { ApprovalPrompt } from "../conversation/approvals.ts";
import type { FileMessage, FileToSend } from "../conversation/files.ts";
import type { AgentIdentity, TeamIdentities } from "../conversation/identity.ts";
import type { OutboundMessage, PostedMessage } from "../conversation/messages.ts";
import { type ConversationRef, encodeConversationKey } from "../conversation/ref.ts";
import type { ConversationIndex } from "../engine/conversation-index.ts";
import type { StreamRecords } from "../streaming/stream-records.ts";
import { StreamingReply } from "../streaming/streaming-reply.ts";
import { chunkMarkdown } from "./chunk.ts";

export interface Delivery {
  readonly conversation: ConversationRef;
  /** Markdown; split into as many platform messages as the adapter's limit needs. */
  readonly text: string;
  /** The origin message this answers. */
  readonly replyTo?: string;
  readonly recipientId?: string;
  readonly agent?: string;
  /**
   * Messages the answer was streamed into while it was written: chunk n replaces the n-th of them
   * (an edit) instead of being posted anew.
   */
  readonly placeholders?: readonly PostedMessage[];
  /** The answer asks for approval: its last chunk carries the Approve / Deny controls. */
  readonly approval?: ApprovalPrompt;
  /** Files sent after the text, each as a native upload. */
  readonly files?: readonly OutboundFile[];
}

/** The bytes of a file the bot sends; undefined when the blob is gone (retention, /forget). */
export type OpenFile = (blob: BlobRef) => Promise<AsyncIterable<Uint8Array> | undefined>;

/**
 * How long a turn runs before the working indicator shows. Most answers come sooner, and each one
 * then costs a single post instead of post + indicator on + indicator off (three platform calls).
 */
export const DEFAULT_TYPING_DELAY_MS = 800;

/**
 * How long after a turn's first streamed text the first preview waits. An answer the model
 * completes by then (instant ones) is posted once, whole; a streaming model's text shows this much
 * later than its first token.
 */
export const DEFAULT_FIRST_PREVIEW_DELAY_MS = 100;

/** Hears every posted chunk's outcome (run-steps log, metrics); must not throw. */
export interface DeliveryObserver {
  posted?(message: OutboundMessage, posted: PostedMessage, latencyMs: number): void;
  failed?(message: OutboundMessage, error: unknown, latencyMs: number): void;
}

export interface DelivererOptions {
  /** See DEFAULT_TYPING_DELAY_MS; 0 shows the indicator before the work starts. */
  readonly typingDelayMs?: number;
  /** See DEFAULT_FIRST_PREVIEW_DELAY_MS; 0 previews the first text at once. */
  readonly firstPreviewDelayMs?: number;
  readonly observer?: DeliveryObserver;
  /** Where streamed answers record their messages, for a re-run after a crash. */
  readonly streams?: StreamRecords;
  /** Where approval prompts are remembered by request, so a decision made elsewhere can show on them. */
  readonly prompts?: Keyv<ApprovalPromptMessage>;
  /** The bytes of files the team sends; absent: no file is uploaded. */
  readonly openFile?: OpenFile;
  /** How agents show themselves: an agent's messages carry its identity to the adapter. */
  readonly identities?: TeamIdentities;
}

/** The message that asks for a request's approval, and its text. */
export interface ApprovalPromptMessage {
  readonly posted: PostedMessage;
  readonly text: string;
}

/** Longer than any approval waits. */
const PROMPT_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export class UnknownPlatformError extends Error {
  constructor(platform: string) {
    super(`no adapter is running for platform "${platform}"`);
    this.name = "UnknownPlatformError";
  }
}

/**
 * The one way anything reaches a thread: the engine's answers, command replies, late answers of
 * follow-up runs, notices — each posted by the outbox, which records it first and retries it.
 * Every posted message is indexed so replies to it find their conversation.
 */
export class Deliverer {
  readonly #adapters: ReadonlyMap<string, Adapter>;
  readonly #index: ConversationIndex;
  readonly #typingDelayMs: number;
  readonly #firstPreviewDelayMs: number;
  readonly #observer: DeliveryObserver | undefined;

  readonly #streams: StreamRecords | undefined;
  readonly #prompts: Keyv<ApprovalPromptMessage> | undefined;
  readonly #openFile: OpenFile | undefined;
  readonly #identities: TeamIdentities | undefined;

  constructor(adapters: Iterable<Adapter>, index: ConversationIndex, options: DelivererOptions = {}) {
    this.#adapters = new Map([...adapters].map((adapter) => [adapter.platform, adapter]));
    this.#index = index;
    this.#typingDelayMs = options.typingDelayMs ?? DEFAULT_TYPING_DELAY_MS;
    this.#firstPreviewDelayMs = options.firstPreviewDelayMs ?? DEFAULT_FIRST_PREVIEW_DELAY_MS;
    this.#observer = options.observer;
    this.#streams = options.streams;
    this.#prompts = options.prompts;
    this.#openFile = options.openFile;
    this.#identities = options.identities;
  }

  /** The identity `agent` posts under, if it has one. */
  identityOf(agent: string | undefined): AgentIdentity | undefined {
    return agent === undefined ? undefined : this.#identities?.agents[agent];
  }

  /**
   * A message posted earlier (known by its id, as the outbox keeps it), to be edited as `agent`'s:
   * the edit shows that agent's identity, as the post did.
   */
  postedBy(id: string, conversation: ConversationRef, agent: string | undefined): PostedMessage {
    const identity = this.identityOf(agent);
    return identity ? { id, conversation, identity } : { id, conversation };
  }

  /** The message with its agent's identity, when the agent has one and none is set yet. */
  #withIdentity(message: OutboundMessage): OutboundMessage {
    if (message.identity) return message;
    const identity = this.identityOf(message.agent);
    return identity ? { ...message, identity } : message;
  }

  /** Whether files can be uploaded into this conversation (the platform takes them, the bytes are kept). */
  canSendFiles(conversation: ConversationRef): boolean {
    return this.#openFile !== undefined && this.adapterFor(conversation).files !== undefined;
  }

  /** A file as adapters take it: its bytes opened from the blob store on each attempt. */
  fileToSend(file: OutboundFile): FileToSend {
    const openFile = this.#openFile;
    return {
      name: file.name,
      mediaType: file.mediaType,
      size: file.size,
      blob: file.blob,
      open: async () => {
        const body = await openFile?.(file.blob);
        if (!body) throw new Error(`the file ${file.name} is no longer kept (retention or /forget)`);
        return body;
      },
    };
  }

  /** Puts a file's bytes on the platform; the reference is recorded before `postFile` shows it. */
  uploadFile(conversation: ConversationRef, file: OutboundFile): Promise<string> {
    const files = this.#filesOf(conversation);
    if (file.size > files.maxUploadBytes)
      throw new RangeError(
        `${file.name} is ${file.size} bytes, more than ${conversation.platform} takes (${files.maxUploadBytes})`,
      );
    return files.upload(conversation, this.fileToSend(file));
  }

  /** Shows an uploaded file in the thread, and indexes the message like any post. */
  async postFile(message: FileMessage): Promise<PostedMessage> {
    const adapter = this.adapterFor(message.conversation);
    const posted = await this.#filesOf(message.conversation).post(message);
    await this.#rememberPosted(adapter, posted);
    await this.#index.markParticipating(encodeConversationKey(message.conversation));
    return posted;
  }

  /** The message an earlier attempt posted for this upload, when the platform can tell. */
  async findPostedFile(message: FileMessage): Promise<PostedMessage | undefined> {
    return this.#filesOf(message.conversation).findPosted?.(message);
  }

  #filesOf(conversation: ConversationRef) {
    const files = this.adapterFor(conversation).files;
    if (!files) throw new Error(`the ${conversation.platform} adapter cannot send files`);
    return files;
  }

  /**
   * An answer shown as it is written, when the conversation's adapter streams; undefined when it
   * does not. Its messages are indexed like any other and recorded under the unit of work, so a
   * re-run after a crash continues in them instead of posting a second copy.
   */
  async openStream(
    delivery: Omit<Delivery, "text">,
    workId: string,
    onPreviewError: (error: unknown) => void,
  ): Promise<StreamingReply | undefined> {
    const adapter = this.adapterFor(delivery.conversation);
    const { streaming } = adapter;
    if (!streaming || !adapter.edit) return undefined;
    const streams = this.#streams;
    const resumed = streams ? await streams.load(workId) : [];
    // Nothing to clear when nothing was recorded: an answer posted whole (most of them) costs no
    // delete. Only the lock holder records under this work id, and it read the record just now.
    let recorded = resumed.length > 0;
    return new StreamingReply({
      surface: {
        post: (message) => this.post(message),
        edit: (posted, text, agent) =>
          this.replace(
            agent === undefined ? posted : this.postedBy(posted.id, posted.conversation, agent),
            text,
          ),
        ...(streaming.openStream
          ? { openStream: (message) => this.#openNativeStream(streaming, message) }
          : {}),
        ...(adapter.showProgress
          ? { showProgress: (conversation, status) => adapter.showProgress!(conversation, status) }
          : {}),
      },
      target: {
        conversation: delivery.conversation,
        ...(delivery.replyTo === undefined ? {} : { replyTo: delivery.replyTo }),
        ...(delivery.recipientId === undefined ? {} : { recipientId: delivery.recipientId }),
        ...(delivery.agent === undefined ? {} : { agent: delivery.agent }),
      },
      maxMessageLength: adapter.limits.maxMessageLength,
      intervalMs: streaming.editIntervalMs,
      firstPreviewDelayMs: this.#firstPreviewDelayMs,
      progress: streaming.progress,
      resumed,
      onPosted: async (message, all) => {
        recorded = true;
        await streams?.save(workId, all);
        // A native stream's message was not posted through post(): index it here.
        await this.#rememberPosted(adapter, message);
        await this.#index.markParticipating(encodeConversationKey(delivery.conversation));
      },
      ...(streams ? { onFinished: async () => (recorded ? streams.clear(workId) : undefined) } : {}),
      onPreviewError,
    });
  }

  /** A platform's own stream, under the agent's identity; its message keeps that identity for edits. */
  #openNativeStream(streaming: AdapterStreaming, message: OutboundMessage): NativeTextStream {
    const shown = this.#withIdentity(message);
    const opened = streaming.openStream!(shown);
    const { identity } = shown;
    if (!identity) return opened;
    return {
      append: async (markdown) => {
        const posted = await opened.append(markdown);
        return posted && { ...posted, identity };
      },
      stop: async () => ({ ...(await opened.stop()), identity }),
    };
  }

  /** Replaces the text of a message posted earlier (one chunk); used for streamed answers. */
  async replace(posted: PostedMessage, text: string, approval?: ApprovalPrompt): Promise<void> {
    const adapter = this.adapterFor(posted.conversation);
    if (!adapter.edit) throw new Error(`the ${adapter.platform} adapter cannot edit messages`);
    await (approval ? adapter.edit(posted, text, approval) : adapter.edit(posted, text));
    if (approval) await this.#prompts?.set(approval.requestId, { posted, text }, PROMPT_TTL_MS);
  }

  adapterFor(conversation: ConversationRef): Adapter {
    const adapter = this.#adapters.get(conversation.platform);
    if (!adapter) throw new UnknownPlatformError(conversation.platform);
    return adapter;
  }

  /** Shows a decision on the request's prompt, where the platform can (a decision made off its buttons). */
  async showDecision(requestId: string, decision: { approved: boolean; by: string }): Promise<void> {
    const prompt = await this.#prompts?.get(requestId);
    if (!prompt) return;
    await this.adapterFor(prompt.posted.conversation).showDecision?.(prompt.posted, prompt.text, decision);
  }

  /** The chunks `text` is posted as on the conversation's platform. */
  chunksFor(conversation: ConversationRef, text: string): string[] {
    return chunkMarkdown(text, this.adapterFor(conversation).limits.maxMessageLength);
  }

  keyOf(conversation: ConversationRef): string {
    return encodeConversationKey(conversation);
  }

  /** Posts one chunk and indexes it, so replies to it find their conversation. */
  async post(outbound: OutboundMessage): Promise<PostedMessage> {
    const message = this.#withIdentity(outbound);
    const adapter = this.adapterFor(message.conversation);
    const started = performance.now();
    let posted: PostedMessage;
    try {
      const landed = await adapter.post(message);
      posted = message.identity ? { ...landed, identity: message.identity } : landed;
    } catch (error) {
      this.#observer?.failed?.(message, error, performance.now() - started);
      throw error;
    }
    this.#observer?.posted?.(message, posted, performance.now() - started);
    if (message.approval)
      await this.#prompts?.set(message.approval.requestId, { posted, text: message.text }, PROMPT_TTL_MS);
    await this.#rememberPosted(adapter, posted);
    // From the first chunk on, the bot takes part: a follow-up typed while later chunks are
    // still being posted must not be judged unaddressed.
    await this.#index.markParticipating(encodeConversationKey(message.conversation));
    return posted;
  }

  /** A chunk an earlier attempt posted with this idempotency key, when the platform can tell. */
  async findPosted(
    conversation: ConversationRef,
    idempotencyKey: string,
  ): Promise<PostedMessage | undefined> {
    const posted = await this.adapterFor(conversation).findPosted?.(conversation, idempotencyKey);
    if (posted) await this.#rememberPosted(this.adapterFor(conversation), posted);
    return posted;
  }

  /** Indexes a bot message, so a reply naming it finds its conversation (where replies name one). */
  async #rememberPosted(adapter: Adapter, posted: PostedMessage): Promise<void> {
    if (adapter.repliesNameTheirTarget === false) return;
    await this.#index.rememberPosted(adapter.platform, posted.id, encodeConversationKey(posted.conversation));
  }

  /**
   * Shows the working indicator while `work` runs, once it has run for the typing delay: an
   * instant answer needs no indicator calls at all. Indicator failures never fail the work, and an
   * indicator that was shown is always taken back (after its start finished, so "off" never
   * overtakes "on").
   */
  async whileTyping<T>(conversation: ConversationRef, work: () => Promise<T>, onError: (e: unknown) => void) {
    const adapter = this.adapterFor(conversation);
    const setTyping = adapter.setTyping?.bind(adapter);
    if (!setTyping) return work();
    let shown: Promise<void> | undefined;
    const show = () => {
      shown = setTyping(conversation, true).catch(onError);
    };
    let timer: NodeJS.Timeout | undefined;
    if (this.#typingDelayMs <= 0) show();
    else timer = setTimeout(show, this.#typingDelayMs);
    try {
      return await work();
    } finally {
      clearTimeout(timer);
      // The turn waits for the platform here: without a CPU slot. (Showing the indicator is not
      // waited for: it runs beside the turn's own work, which keeps its slot.)
      const started = shown;
      if (started)
        await awayFromCpu(async () => {
          await started;
          await setTyping(conversation, false).catch(onError);
        });
    }
  }
}
