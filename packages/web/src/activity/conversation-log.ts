import {
  type ConversationRef,
  encodeConversationKey,
  type InboundMessage,
  type OutboundMessage,
  type PostedMessage,
  type Store,
} from "@switchboard/core";
import type { FileMessage } from "@switchboard/core/adapter";
import { blobId } from "@switchboard/core/host";
import type Keyv from "keyv";
import { LRUCache } from "lru-cache";

/** One message as the users of a conversation saw it. */
export interface TranscriptMessage {
  /** Position in the conversation's transcript, from 0. */
  readonly seq: number;
  /** The platform's id of the message. */
  readonly id: string;
  readonly role: "user" | "bot";
  /** Who wrote it: the user's display name; for the bot, the agent's display name, else the agent. */
  readonly author: string;
  readonly agent?: string;
  readonly text: string;
  readonly at: number;
  readonly replyTo?: string;
  /** Files sent with it (a person's attachments) or as it (a file the bot sent). */
  readonly files?: readonly TranscriptFile[];
}

/** A file in the transcript: its name always, where it is kept once that is known. */
export interface TranscriptFile {
  readonly name: string;
  readonly mediaType?: string;
  readonly size?: number;
  /** `space/digest` in the blob store; absent until the file was downloaded (see ConsoleDeps.filesOf). */
  readonly blob?: string;
}

/** What the conversations page lists. */
export interface ConversationSummary {
  readonly key: string;
  readonly conversation: ConversationRef;
  readonly firstAt: number;
  readonly lastAt: number;
  readonly messageCount: number;
  /** Display names of the people who wrote, first seen first (at most a handful). */
  readonly participants: readonly string[];
  readonly lastText: string;
}

const MAX_PARTICIPANTS = 8;
const MAX_PENDING = 2_000;
const PREVIEW_CHARS = 140;

/**
 * Every conversation the bot takes part in, and its transcript, kept in the store so every
 * process and every restart shows the same. Writes for one conversation are chained in order in
 * this process, so a question is always written before the answer that replies to it.
 *
 * A user message is written when it is addressed to the bot (direct, mention) or written where the
 * bot already takes part; any other message waits (bounded) until a bot message replies to it — a
 * reply outside a thread belongs to the conversation of the bot message it answers.
 */
export class ConversationLog {
  readonly #summaries: Keyv<ConversationSummary>;
  readonly #messages: Keyv<TranscriptMessage>;
  readonly #recorded: Keyv<string>;
  readonly #pending = new LRUCache<string, InboundMessage>({ max: MAX_PENDING });
  readonly #chains = new Map<string, Promise<void>>();
  readonly #onChange: (key: string) => void;

  constructor(store: Store, options: { onChange?: (key: string) => void } = {}) {
    this.#summaries = store.namespace<ConversationSummary>("console-conversations");
    this.#messages = store.namespace<TranscriptMessage>("console-transcripts");
    this.#recorded = store.namespace<string>("console-transcript-ids");
    this.#onChange = options.onChange ?? (() => {});
  }

  /** Records a user's message (see the class comment for which are kept). */
  noteInbound(message: InboundMessage): Promise<void> {
    if (message.author.isSelf || message.author.isBot || message.isEdit) return Promise.resolve();
    const key = encodeConversationKey(message.conversation);
    return this.#chain(key, async () => {
      const known = (await this.#summaries.get(key)) !== undefined;
      if (message.isDirect || message.mentionsBot || known) {
        await this.#appendUser(key, message);
        return;
      }
      this.#pending.set(pendingKey(message.conversation.platform, message.id), message);
    });
  }

  /** Records a message the bot posted, after the user message it replies to if that was waiting. */
  notePosted(message: OutboundMessage, posted: PostedMessage): Promise<void> {
    const key = encodeConversationKey(posted.conversation);
    return this.#chain(key, async () => {
      const waiting =
        message.replyTo === undefined
          ? undefined
          : this.#pending.get(pendingKey(posted.conversation.platform, message.replyTo));
      if (waiting) {
        this.#pending.delete(pendingKey(posted.conversation.platform, waiting.id));
        await this.#appendUser(key, waiting, posted.conversation);
      }
      await this.#append(key, posted.conversation, {
        id: posted.id,
        role: "bot",
        // The name people saw on the platform (the agent's display), else the agent.
        author: message.identity?.name ?? message.agent ?? "switchboard",
        ...(message.agent ? { agent: message.agent } : {}),
        text: message.text,
        at: Date.now(),
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      });
    });
  }

  /** Records a file the bot sent into a thread, as a message of its own. */
  notePostedFile(message: FileMessage, posted: PostedMessage): Promise<void> {
    const key = encodeConversationKey(posted.conversation);
    const { file } = message;
    return this.#chain(key, () =>
      this.#append(key, posted.conversation, {
        id: posted.id,
        role: "bot",
        author: message.agent ?? "switchboard",
        ...(message.agent ? { agent: message.agent } : {}),
        text: "",
        at: Date.now(),
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
        files: [
          {
            name: file.name,
            mediaType: file.mediaType,
            size: file.size,
            ...(file.blob ? { blob: blobId(file.blob) } : {}),
          },
        ],
      }),
    );
  }

  /** A bot message changed (a streamed answer growing): its transcript entry shows the new text. */
  noteEdited(posted: PostedMessage, text: string): Promise<void> {
    const key = encodeConversationKey(posted.conversation);
    return this.#chain(key, async () => {
      const place = await this.#recorded.get(`${posted.conversation.platform}:bot:${posted.id}`);
      // Entries recorded before places were kept name only their conversation: left as they were.
      const message = place?.includes("#") ? await this.#messages.get(place) : undefined;
      if (!place || !message || message.text === text) return;
      await this.#messages.set(place, { ...message, text });
      const summary = await this.#summaries.get(key);
      if (summary && summary.messageCount === message.seq + 1)
        await this.#summaries.set(key, { ...summary, lastText: text.slice(0, PREVIEW_CHARS) });
      this.#onChange(key);
    });
  }

  async summary(key: string): Promise<ConversationSummary | undefined> {
    return this.#summaries.get(key);
  }

  /** Every conversation, the most recently active first. */
  async list(): Promise<ConversationSummary[]> {
    const found: ConversationSummary[] = [];
    if (!this.#summaries.iterator) throw new Error("the store cannot list conversations");
    for await (const [, summary] of this.#summaries.iterator(undefined)) {
      found.push(summary as ConversationSummary);
    }
    return found.sort((a, b) => b.lastAt - a.lastAt);
  }

  /** The newest `limit` messages of a conversation, oldest first. */
  async transcript(key: string, limit = 200): Promise<TranscriptMessage[]> {
    const count = (await this.#summaries.get(key))?.messageCount ?? 0;
    const first = Math.max(0, count - limit);
    if (count === first) return [];
    const keys = Array.from({ length: count - first }, (_, index) => messageKey(key, first + index));
    const found = await this.#messages.getMany(keys);
    return found.filter((message): message is TranscriptMessage => message !== undefined);
  }

  /** Resolves when every write started so far has finished. */
  async idle(): Promise<void> {
    while (this.#chains.size > 0) await Promise.all(this.#chains.values());
  }

  async #appendUser(key: string, message: InboundMessage, conversation = message.conversation) {
    await this.#append(key, conversation, {
      id: message.id,
      role: "user",
      author: message.author.displayName ?? message.author.id,
      text: message.text,
      at: message.sentAt,
      ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      ...(message.attachments?.length ? { files: message.attachments.map(transcriptFile) } : {}),
    });
  }

  async #append(
    key: string,
    conversation: ConversationRef,
    message: Omit<TranscriptMessage, "seq">,
  ): Promise<void> {
    const recordedKey = `${conversation.platform}:${message.role}:${message.id}`;
    // A platform that redelivers an event must not show the message twice.
    if (await this.#recorded.get(recordedKey)) return;
    const previous = await this.#summaries.get(key);
    const seq = previous?.messageCount ?? 0;
    await this.#messages.set(messageKey(key, seq), { ...message, seq });
    // Where the message sits, so an edit of it finds its entry.
    await this.#recorded.set(recordedKey, messageKey(key, seq));
    const participants = previous?.participants ?? [];
    await this.#summaries.set(key, {
      key,
      conversation,
      firstAt: previous?.firstAt ?? message.at,
      lastAt: Math.max(previous?.lastAt ?? 0, message.at),
      messageCount: seq + 1,
      participants:
        message.role === "user" &&
        !participants.includes(message.author) &&
        participants.length < MAX_PARTICIPANTS
          ? [...participants, message.author]
          : participants,
      lastText: (message.text || (message.files ?? []).map((file) => file.name).join(", ")).slice(
        0,
        PREVIEW_CHARS,
      ),
    });
    this.#onChange(key);
  }

  #chain(key: string, work: () => Promise<void>): Promise<void> {
    const previous = this.#chains.get(key) ?? Promise.resolve();
    const next = previous.then(work);
    const settled = next.catch(() => {});
    this.#chains.set(key, settled);
    void settled.then(() => {
      if (this.#chains.get(key) === settled) this.#chains.delete(key);
    });
    return next;
  }
}

function messageKey(key: string, seq: number): string {
  return `${key}#${seq}`;
}

function pendingKey(platform: string, id: string): string {
  return `${platform}:${id}`;
}

/** A person's attachment as the transcript names it; the web chat's uploads are kept already. */
function transcriptFile(attachment: NonNullable<InboundMessage["attachments"]>[number]): TranscriptFile {
  const blob = attachment.ref.blob;
  return {
    name: attachment.name,
    ...(attachment.declaredType ? { mediaType: attachment.declaredType } : {}),
    ...(attachment.declaredSize === undefined ? {} : { size: attachment.declaredSize }),
    ...(typeof blob === "string" ? { blob } : {}),
  };
}
