import { RateWindow } from "../rate-window.ts";
import {
  DiscordApiError,
  invalidFormBody,
  RateLimitedError,
  unauthorized,
  unknownChannel,
  unknownMessage,
  unknownWebhook,
} from "./api-error.ts";
import { DiscordCdn, type FileRecord } from "./cdn.ts";
import { channelPayload, guildCreatePayload, messagePayload, type PayloadSource } from "./payloads.ts";
import {
  ChannelKind,
  type ChannelRecord,
  MessageKind,
  type MessageRecord,
  type UserRecord,
  type WebhookRecord,
} from "./records.ts";
import { nextSnowflake } from "./snowflakes.ts";

export type Dispatch = (event: string, data: unknown) => void;

/** Discord's ApplicationFlags for the Message Content intent as toggled in the Developer Portal. */
export const GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19;
/** MessageFlags.IsVoiceMessage. */
const VOICE_MESSAGE = 1 << 13;
const MAX_CONTENT = 2000;
const MENTION = /<@!?(\d+)>/g;

/** Who mentions in `content` would actually notify, given the bot's `allowed_mentions`. */
function pingsOf(content: string, allowed: unknown): string[] {
  const mentioned = [...content.matchAll(MENTION)].map((match) => match[1] ?? "");
  const everyone = /@(everyone|here)/.test(content) ? ["@everyone"] : [];
  if (allowed === undefined || allowed === null) return [...mentioned, ...everyone];
  const { parse = [], users = [] } = allowed as { parse?: string[]; users?: string[] };
  return [
    ...mentioned.filter((id) => parse.includes("users") || users.includes(id)),
    ...(parse.includes("everyone") ? everyone : []),
  ];
}

/**
 * The state of one small Discord: a bot, a few people, one server with two channels, DMs,
 * threads and messages. REST and gateway both act on it; tests read it back.
 */
export class DiscordWorld implements PayloadSource {
  readonly token = `fake-bot-token.${nextSnowflake()}`;
  readonly applicationId = nextSnowflake();
  readonly botRoleId = nextSnowflake();
  readonly guildId = nextSnowflake();
  readonly bot: UserRecord = { id: this.applicationId, username: "switchboard", bot: true };
  readonly ada: UserRecord = { id: nextSnowflake(), username: "ada", bot: false };
  readonly grace: UserRecord = { id: nextSnowflake(), username: "grace", bot: false };
  readonly otherBot: UserRecord = { id: nextSnowflake(), username: "weatherbot", bot: true };
  readonly general: ChannelRecord;
  readonly random: ChannelRecord;
  /** The Developer Portal switch: off means IDENTIFY with the MessageContent intent is closed with 4014. */
  messageContentIntentEnabled = true;
  readonly users = new Map<string, UserRecord>();
  readonly channels = new Map<string, ChannelRecord>();
  readonly messages = new Map<string, MessageRecord & { pings: string[] }>();
  readonly typing: { channelId: string; at: number }[] = [];
  readonly cdn = new DiscordCdn();
  /** The next post with files is made, and then answered 500 (its answer lost): a client sends it again. */
  failNextFilePost = false;
  /** The bot's role has Manage Webhooks (on by default, as with the invite link's permissions). */
  manageWebhooks = true;
  /** Channel webhooks, by id. */
  readonly webhooks = new Map<string, WebhookRecord>();
  /** The next webhook execution is made, and then answered 500 (its answer lost). */
  failNextWebhookAnswer = false;
  /** Nonces of the bot's posts (`enforce_nonce`): a repeat returns the first message. */
  readonly #nonces = new Map<string, string>();
  /** Discord's per-channel limit on the bot's posts and edits: about 5 per 5 s. */
  readonly messageRate = new RateWindow(5, 5_000);
  dispatch: Dispatch = () => {};
  readonly #createdAt = Date.now();

  constructor() {
    for (const user of [this.bot, this.ada, this.grace, this.otherBot]) this.users.set(user.id, user);
    this.general = this.#addChannel({ type: ChannelKind.GuildText, name: "general", guildId: this.guildId });
    this.random = this.#addChannel({ type: ChannelKind.GuildText, name: "random", guildId: this.guildId });
  }

  get botUserId(): string {
    return this.bot.id;
  }

  authorize(header: string | undefined): void {
    if (header !== `Bot ${this.token}`) throw unauthorized();
  }

  user(id: string): UserRecord {
    const user = this.users.get(id);
    if (!user) throw new DiscordApiError(404, 10013, "Unknown User");
    return user;
  }

  channel(id: string): ChannelRecord | undefined {
    return this.channels.get(id);
  }

  message(id: string): MessageRecord | undefined {
    return this.messages.get(id);
  }

  requireChannel(id: string): ChannelRecord {
    const channel = this.channels.get(id);
    if (!channel) throw unknownChannel();
    return channel;
  }

  guildCreate() {
    return guildCreatePayload(
      this,
      { id: this.guildId, name: "Switchboard test server", ownerId: this.ada.id, createdAt: this.#createdAt },
      [...this.channels.values()].filter((channel) => channel.guildId === this.guildId),
      [this.bot, this.ada, this.grace, this.otherBot],
    );
  }

  dmChannelWith(userId: string): ChannelRecord {
    const existing = [...this.channels.values()].find(
      (c) => c.type === ChannelKind.DM && c.recipientId === userId,
    );
    return existing ?? this.#addChannel({ type: ChannelKind.DM, name: "", recipientId: userId });
  }

  /** A person (or another bot) writes; the gateway delivers MESSAGE_CREATE. */
  userWrites(input: {
    channelId: string;
    authorId: string;
    content: string;
    replyTo?: string;
    files?: readonly { name: string; bytes: Buffer; contentType: string }[];
    /** A voice message (the client's recorder): IS_VOICE_MESSAGE on the message. */
    voice?: boolean;
  }): MessageRecord {
    const channel = this.requireChannel(input.channelId);
    const attachments = (input.files ?? []).map((file) =>
      this.cdn.add({
        channelId: channel.id,
        filename: file.name,
        contentType: file.contentType,
        bytes: file.bytes,
      }),
    );
    if (input.replyTo !== undefined && this.messages.get(input.replyTo)?.channelId !== channel.id) {
      throw new Error(
        `Discord clients only reply within a channel: ${input.replyTo} is not in ${channel.id}`,
      );
    }
    const message = this.#addMessage({
      channelId: channel.id,
      authorId: input.authorId,
      content: input.content,
      type: input.replyTo === undefined ? MessageKind.Default : MessageKind.Reply,
      ...(input.replyTo === undefined ? {} : { referenceId: input.replyTo }),
      ...(attachments.length > 0 ? { attachments } : {}),
      ...(input.voice ? { flags: VOICE_MESSAGE } : {}),
      bodies: [],
    });
    this.dispatch("MESSAGE_CREATE", messagePayload(this, message, { gateway: true }));
    return message;
  }

  userEdits(messageId: string, content: string): void {
    const message = this.messages.get(messageId);
    if (!message) throw unknownMessage();
    message.content = content;
    message.editedAt = Date.now();
    this.dispatch("MESSAGE_UPDATE", messagePayload(this, message, { gateway: true }));
  }

  /** PATCH /channels/{id}/messages/{id} from the bot: only its own messages; counted against the rate limit. */
  botEdits(channelId: string, messageId: string, body: Record<string, unknown>): MessageRecord {
    const channel = this.requireChannel(channelId);
    const message = this.messages.get(messageId);
    if (!message || message.channelId !== channel.id) throw unknownMessage();
    if (message.authorId !== this.bot.id)
      throw new DiscordApiError(403, 50005, "Cannot edit a message authored by another user");
    this.#withinRate(channel.id);
    message.content = this.#validContent(body);
    message.editedAt = Date.now();
    message.bodies.push(body);
    this.dispatch("MESSAGE_UPDATE", messagePayload(this, message, { gateway: true }));
    return message;
  }

  /** GET /channels/{id}/webhooks: needs Manage Webhooks; text channels only. */
  channelWebhooks(channelId: string): WebhookRecord[] {
    const channel = this.#webhookChannel(channelId);
    return [...this.webhooks.values()].filter((webhook) => webhook.channelId === channel.id);
  }

  /** POST /channels/{id}/webhooks: needs Manage Webhooks; Discord's name rules; at most 15 per channel. */
  createWebhook(channelId: string, body: Record<string, unknown>): WebhookRecord {
    const channel = this.#webhookChannel(channelId);
    const name = typeof body.name === "string" ? body.name : "";
    if (name.length < 1 || name.length > 80)
      throw invalidFormBody("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 80 in length.");
    if (/clyde|discord/i.test(name))
      throw invalidFormBody("name", "WEBHOOK_INVALID_USERNAME", 'Username cannot contain "discord"');
    if (this.channelWebhooks(channel.id).length >= 15)
      throw new DiscordApiError(400, 30007, "Maximum number of webhooks reached (15)");
    const webhook: WebhookRecord = {
      id: nextSnowflake(),
      token: `webhook-token-${nextSnowflake()}`,
      channelId: channel.id,
      guildId: channel.guildId ?? "",
      applicationId: this.applicationId,
      name,
      creatorId: this.bot.id,
    };
    this.webhooks.set(webhook.id, webhook);
    return webhook;
  }

  /** A webhook addressed by id and token (no bot token): Unknown Webhook, or Invalid Webhook Token. */
  webhookByToken(id: string, token: string): WebhookRecord {
    const webhook = this.webhooks.get(id);
    if (!webhook) throw unknownWebhook();
    if (webhook.token !== token) throw new DiscordApiError(401, 50027, "Invalid Webhook Token");
    return webhook;
  }

  /**
   * POST /webhooks/{id}/{token}: a message in the webhook's channel, or in one of its threads
   * (`thread_id`), under `username` and `avatar_url` (else the webhook's own). Webhook messages
   * are never replies. Without `wait=true` Discord answers 204 and no message.
   */
  executeWebhook(webhook: WebhookRecord, body: Record<string, unknown>, query: URLSearchParams) {
    const threadId = query.get("thread_id");
    const channelId = threadId ?? webhook.channelId;
    const channel = this.channels.get(channelId);
    if (!channel || (threadId !== null && channel.parentId !== webhook.channelId)) throw unknownChannel();
    const username = typeof body.username === "string" ? body.username : webhook.name;
    if (username.length < 1 || username.length > 80 || /clyde|discord/i.test(username))
      throw invalidFormBody("username", "USERNAME_INVALID", "Invalid username");
    this.#withinRate(channel.id);
    const content = this.#validContent(body);
    const avatarUrl = typeof body.avatar_url === "string" ? body.avatar_url : undefined;
    const message = this.#addMessage({
      channelId: channel.id,
      authorId: webhook.id,
      content,
      type: MessageKind.Default,
      bodies: [body],
      webhook: { id: webhook.id, username, ...(avatarUrl ? { avatarUrl } : {}) },
      pings: pingsOf(content, body.allowed_mentions),
    });
    this.dispatch("MESSAGE_CREATE", messagePayload(this, message, { gateway: true }));
    return message;
  }

  /**
   * PATCH /webhooks/{id}/{token}/messages/{message}: only the webhook's own messages; one in a
   * thread only with that `thread_id` (else Unknown Message). The name it shows stays.
   */
  editWebhookMessage(
    webhook: WebhookRecord,
    messageId: string,
    body: Record<string, unknown>,
    query: URLSearchParams,
  ): MessageRecord {
    const message = this.messages.get(messageId);
    const channelId = query.get("thread_id") ?? webhook.channelId;
    if (!message || message.webhook?.id !== webhook.id || message.channelId !== channelId)
      throw unknownMessage();
    this.#withinRate(message.channelId);
    if (body.content !== undefined) message.content = this.#validContent(body);
    message.editedAt = Date.now();
    message.bodies.push(body);
    this.dispatch("MESSAGE_UPDATE", messagePayload(this, message, { gateway: true }));
    return message;
  }

  /** Messages webhooks posted (agents' messages), oldest first. */
  webhookMessages(): MessageRecord[] {
    return [...this.messages.values()].filter((message) => message.webhook !== undefined);
  }

  #webhookChannel(channelId: string): ChannelRecord {
    const channel = this.requireChannel(channelId);
    if (!this.manageWebhooks) throw new DiscordApiError(403, 50013, "Missing Permissions");
    if (channel.type !== ChannelKind.GuildText)
      throw new DiscordApiError(400, 50024, "Cannot execute action on this channel type");
    return channel;
  }

  #withinRate(channelId: string): void {
    const retryAfterMs = this.messageRate.take(channelId);
    if (retryAfterMs !== undefined) throw new RateLimitedError(retryAfterMs);
  }

  /**
   * POST /channels/{id}/messages from the bot (JSON, or multipart with files). With `nonce` and
   * `enforce_nonce`, a post repeating an earlier one's nonce returns that message and posts nothing.
   */
  botPosts(
    channelId: string,
    body: Record<string, unknown>,
    files: readonly { name: string; bytes: Buffer; contentType: string }[] = [],
  ): MessageRecord {
    const channel = this.requireChannel(channelId);
    const nonce = body.enforce_nonce === true && body.nonce !== undefined ? String(body.nonce) : undefined;
    const repeated = nonce === undefined ? undefined : this.#nonces.get(`${channel.id}:${nonce}`);
    const first = repeated === undefined ? undefined : this.messages.get(repeated);
    if (first) return first;
    this.#withinRate(channel.id);
    const content = this.#validContent(body, { allowEmpty: files.length > 0 });
    const attachments: FileRecord[] = files.map((file) =>
      this.cdn.add({
        channelId: channel.id,
        filename: file.name,
        contentType: file.contentType,
        bytes: file.bytes,
      }),
    );
    const reference = body.message_reference as
      | { message_id?: string; channel_id?: string; fail_if_not_exists?: boolean }
      | undefined;
    let referenceId: string | undefined;
    if (reference?.message_id) {
      if (reference.channel_id !== undefined && reference.channel_id !== channel.id) {
        throw invalidFormBody(
          "message_reference",
          "REPLIES_CANNOT_REFERENCE_OTHER_CHANNEL",
          "Cannot reply to a message in a different channel",
        );
      }
      if (this.messages.get(reference.message_id)?.channelId === channel.id)
        referenceId = reference.message_id;
      else if (reference.fail_if_not_exists !== false) {
        throw invalidFormBody("message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message");
      }
    }
    const message = this.#addMessage({
      channelId: channel.id,
      authorId: this.bot.id,
      content,
      type: referenceId ? MessageKind.Reply : MessageKind.Default,
      ...(referenceId ? { referenceId } : {}),
      ...(attachments.length > 0 ? { attachments } : {}),
      bodies: [body],
      pings: pingsOf(content, body.allowed_mentions),
    });
    if (nonce !== undefined) this.#nonces.set(`${channel.id}:${nonce}`, message.id);
    this.dispatch("MESSAGE_CREATE", messagePayload(this, message, { gateway: true }));
    return message;
  }

  /** POST /channels/{channel}/messages/{message}/threads: the thread takes the message's id. */
  startThread(channelId: string, messageId: string, body: Record<string, unknown>): ChannelRecord {
    const parent = this.requireChannel(channelId);
    if (parent.type !== ChannelKind.GuildText)
      throw new DiscordApiError(400, 50024, "Cannot execute action on this channel type");
    const starter = this.messages.get(messageId);
    if (!starter || starter.channelId !== parent.id) throw unknownMessage();
    if (starter.threadId)
      throw new DiscordApiError(400, 160004, "A thread has already been created for this message");
    const name = typeof body.name === "string" ? body.name : "";
    if (name.length < 1 || name.length > 100)
      throw invalidFormBody("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.");
    const thread = this.#addChannel({
      id: messageId,
      type: ChannelKind.PublicThread,
      name,
      guildId: parent.guildId,
      parentId: parent.id,
      ownerId: this.bot.id,
      starterMessageId: messageId,
      autoArchiveMinutes: typeof body.auto_archive_duration === "number" ? body.auto_archive_duration : 4320,
    });
    starter.threadId = thread.id;
    this.dispatch("THREAD_CREATE", { ...channelPayload(this, thread), newly_created: true });
    this.dispatch("MESSAGE_UPDATE", messagePayload(this, starter, { gateway: true }));
    return thread;
  }

  /** Creates a message on behalf of an interaction response (webhook-authored by the application). */
  addInteractionMessage(
    input: Omit<MessageRecord, "id" | "createdAt" | "guildId" | "mentionIds" | "mentionRoleIds">,
  ) {
    return this.#addMessage({
      ...input,
      // A callback body holds the message under `data`; webhook bodies are the message itself.
      pings: pingsOf(input.content, messageBodyOf(input.bodies.at(-1))?.allowed_mentions),
    });
  }

  validContent(body: Record<string, unknown>, options: { allowEmpty?: boolean } = {}): string {
    return this.#validContent(body, options);
  }

  #validContent(body: Record<string, unknown>, options: { allowEmpty?: boolean } = {}): string {
    const content = typeof body.content === "string" ? body.content : "";
    if (content === "" && !options.allowEmpty)
      throw new DiscordApiError(400, 50006, "Cannot send an empty message");
    if (content.length > MAX_CONTENT) {
      throw invalidFormBody("content", "BASE_TYPE_MAX_LENGTH", `Must be ${MAX_CONTENT} or fewer in length.`);
    }
    return content;
  }

  #addChannel(input: Omit<ChannelRecord, "id" | "createdAt"> & { id?: string }): ChannelRecord {
    const channel: ChannelRecord = { ...input, id: input.id ?? nextSnowflake(), createdAt: Date.now() };
    this.channels.set(channel.id, channel);
    return channel;
  }

  #addMessage(
    input: Omit<MessageRecord, "id" | "createdAt" | "guildId" | "mentionIds" | "mentionRoleIds" | "flags"> & {
      flags?: number;
      pings?: string[];
    },
  ): MessageRecord & { pings: string[] } {
    const channel = this.requireChannel(input.channelId);
    const mentionIds = [...input.content.matchAll(MENTION)]
      .map((match) => match[1] ?? "")
      .filter((id) => this.users.has(id));
    const message = {
      ...input,
      id: nextSnowflake(),
      flags: input.flags ?? 0,
      ...(channel.guildId ? { guildId: channel.guildId } : {}),
      mentionIds:
        input.authorId === this.bot.id ? (input.pings ?? []).filter((id) => this.users.has(id)) : mentionIds,
      mentionRoleIds: [...input.content.matchAll(/<@&(\d+)>/g)].map((match) => match[1] ?? ""),
      createdAt: Date.now(),
      pings: input.pings ?? mentionIds,
    };
    this.messages.set(message.id, message);
    return message;
  }
}

function messageBodyOf(body: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const data = body?.data;
  return typeof data === "object" && data !== null && "type" in (body ?? {})
    ? (data as Record<string, unknown>)
    : body;
}
