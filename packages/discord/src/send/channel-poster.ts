import type { Logger } from "@switchboard/core/adapter";
import {
  type ActionRowBuilder,
  type AnyThreadChannel,
  type ButtonBuilder,
  ChannelType,
  type Client,
  DiscordAPIError,
  type NewsChannel,
  RESTJSONErrorCodes,
  type SendableChannels,
  type TextChannel,
  type ThreadAutoArchiveDuration,
} from "discord.js";
import { NO_PINGS } from "../connect/client.ts";
import type { ConversationPlace } from "../receive/places.ts";
import { type ThreadNames, threadNameForFetched } from "./thread-names.ts";

export class DiscordDeliveryError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "DiscordDeliveryError";
  }
}

export interface ChannelPosterOptions {
  readonly autoThread: boolean;
  readonly threadAutoArchiveMinutes: ThreadAutoArchiveDuration;
  /**
   * The gateway announces every thread, so a thread missing from the client's cache does not exist.
   * False in send-only mode (no gateway): threads, guilds and channels are then fetched over REST.
   */
  readonly gatewayCache: boolean;
}

const isApiError = (error: unknown, code: number) => error instanceof DiscordAPIError && error.code === code;
const SNOWFLAKE = /^\d+$/;

/**
 * Posts into a conversation's place: its DM, its thread — started from the root message on the
 * first answer when `autoThread` is on — or, inline, the channel the root message is in.
 */
export class ChannelPoster {
  readonly #client: Client;
  readonly #options: ChannelPosterOptions;
  readonly #names: ThreadNames;
  readonly #logger: Logger;
  /** Roots known to be plain channel messages with no thread (inline mode), to skip the lookup. */
  readonly #threadless = new Set<string>();

  constructor(client: Client, options: ChannelPosterOptions, names: ThreadNames, logger: Logger) {
    this.#client = client;
    this.#options = options;
    this.#names = names;
    this.#logger = logger;
  }

  /**
   * Sends one message; a reply to `replyTo` when it is a message in the same channel. Returns its id.
   * With a `nonce`, Discord returns the first message for a repeated send instead of posting again.
   */
  async send(
    place: ConversationPlace,
    content: string,
    replyTo?: string,
    nonce?: string,
    components?: readonly ActionRowBuilder<ButtonBuilder>[],
  ): Promise<string> {
    const channel = await this.#target(place, true);
    const sent = await channel.send({
      content,
      ...(components ? { components: [...components] } : {}),
      ...(nonce === undefined ? {} : { nonce, enforceNonce: true }),
      allowedMentions: { ...NO_PINGS, parse: [] },
      // Discord refuses replies across channels; with failIfNotExists off, an origin that sits
      // outside this channel (the thread's starter message in the parent) just leaves it a plain message.
      ...(replyTo && SNOWFLAKE.test(replyTo)
        ? { reply: { messageReference: replyTo, failIfNotExists: false } }
        : {}),
    });
    return sent.id;
  }

  /**
   * Sends one file as a message attachment (multipart), with no text; the nonce makes a repeated
   * send return the first message, as for text. Returns the message's id.
   */
  async sendFile(
    place: ConversationPlace,
    file: { readonly name: string; readonly bytes: Buffer },
    replyTo: string | undefined,
    nonce: string,
  ): Promise<string> {
    const channel = await this.#target(place, true);
    const sent = await channel.send({
      files: [{ attachment: file.bytes, name: file.name }],
      nonce,
      enforceNonce: true,
      allowedMentions: { ...NO_PINGS, parse: [] },
      ...(replyTo && SNOWFLAKE.test(replyTo)
        ? { reply: { messageReference: replyTo, failIfNotExists: false } }
        : {}),
    });
    return sent.id;
  }

  /**
   * Replaces the content of a message the bot sent into the conversation's place (its thread once
   * there is one, else the channel or DM) — how a streamed answer grows.
   */
  async edit(
    place: ConversationPlace,
    messageId: string,
    content: string,
    components?: readonly ActionRowBuilder<ButtonBuilder>[],
  ): Promise<void> {
    const channel = await this.#target(place, false);
    await channel.messages.edit(messageId, {
      content,
      ...(components ? { components: [...components] } : {}),
      allowedMentions: { ...NO_PINGS, parse: [] },
    });
  }

  /**
   * Where the conversation's messages are: its thread (started now when `forPosting` and
   * `autoThread` call for it), else its channel or DM. Agents' webhook posts go there too.
   */
  placeFor(place: ConversationPlace, forPosting: boolean): Promise<SendableChannels> {
    return this.#target(place, forPosting);
  }

  /** Where "is typing…" shows: the thread if it exists already, else the channel the question was asked in. */
  async typingTarget(place: ConversationPlace): Promise<SendableChannels> {
    return this.#target(place, false);
  }

  async #target(place: ConversationPlace, forPosting: boolean): Promise<SendableChannels> {
    if (place.kind === "dm") return this.#sendable(place.channelId);
    // discord.js builds guild channels and threads only for guilds it knows.
    if (!this.#client.guilds.cache.has(place.guildId)) await this.#client.guilds.fetch(place.guildId);
    if (place.kind === "channel") return this.#sendable(place.channelId);
    const known = await this.#knownThread(place.rootId);
    if (known) return known;
    const parent = await this.#sendable(place.channelId);
    if (!forPosting || this.#threadless.has(place.rootId)) return parent;
    const threadable = parent.type === ChannelType.GuildText || parent.type === ChannelType.GuildAnnouncement;
    // Without the gateway's cache, #knownThread has just asked for an existing thread.
    const thread =
      this.#options.autoThread && threadable
        ? await this.#startThread(parent, place)
        : this.#options.gatewayCache
          ? await this.#existingThread(place.rootId)
          : null;
    if (thread) return thread;
    this.#threadless.add(place.rootId);
    return parent;
  }

  /** The conversation's thread when it exists already, as far as the client can tell without posting. */
  async #knownThread(rootId: string): Promise<AnyThreadChannel | null> {
    const cached = this.#client.channels.cache.get(rootId);
    if (cached?.isThread()) return cached;
    if (this.#options.gatewayCache || this.#threadless.has(rootId)) return null;
    return this.#existingThread(rootId);
  }

  async #sendable(channelId: string): Promise<SendableChannels> {
    const channel = await this.#client.channels.fetch(channelId);
    if (!channel?.isSendable())
      throw new DiscordDeliveryError(`the bot cannot post in Discord channel ${channelId}`);
    return channel;
  }

  /** The root message's thread: created now, or found when it already exists (after a restart, archived). */
  async #startThread(
    parent: TextChannel | NewsChannel,
    place: ConversationPlace & { kind: "thread" },
  ): Promise<AnyThreadChannel | null> {
    try {
      return await parent.threads.create({
        startMessage: place.rootId,
        name: await this.#threadName(parent, place.rootId),
        autoArchiveDuration: this.#options.threadAutoArchiveMinutes,
      });
    } catch (error) {
      if (isApiError(error, RESTJSONErrorCodes.ThreadAlreadyCreatedForMessage))
        return this.#existingThread(place.rootId);
      // The root is not a message in this channel (e.g. an ephemeral command reply): answer inline.
      if (isApiError(error, RESTJSONErrorCodes.UnknownMessage)) {
        this.#logger.info("conversation root has no message to start a thread on; answering in the channel", {
          root: place.rootId,
        });
        return null;
      }
      throw new DiscordDeliveryError(
        `could not start a thread on message ${place.rootId} in channel ${place.channelId}`,
        error,
      );
    }
  }

  /** The question names its thread; a worker, which never received it, reads it first. */
  async #threadName(parent: TextChannel | NewsChannel, rootId: string): Promise<string> {
    if (this.#options.gatewayCache || this.#names.has(rootId)) return this.#names.nameFor(rootId);
    try {
      const root = await parent.messages.fetch(rootId);
      return threadNameForFetched(root.content, root.member?.displayName ?? root.author.displayName);
    } catch (error) {
      // Starting the thread then fails the same way, and says what to do.
      this.#logger.debug("could not read a conversation's root message to name its thread", {
        root: rootId,
        error,
      });
      return this.#names.nameFor(rootId);
    }
  }

  async #existingThread(rootId: string): Promise<AnyThreadChannel | null> {
    try {
      const channel = await this.#client.channels.fetch(rootId);
      return channel?.isThread() ? channel : null;
    } catch (error) {
      if (isApiError(error, RESTJSONErrorCodes.UnknownChannel)) return null;
      throw error;
    }
  }
}
