import {
  type Adapter,
  type AdapterLimits,
  type ConversationRef,
  chunkMarkdown,
  encodeConversationKey,
  type InboundSink,
  type Logger,
  type OutboundMessage,
  type PostedMessage,
  silentLogger,
} from "@switchboard/core";
import { type Client, Events, type Message, type PartialMessage } from "discord.js";
import { registerSlashCommands } from "./commands/register-commands.ts";
import { SlashCommandReceiver } from "./commands/slash-command-receiver.ts";
import { DISCORD_MESSAGE_LIMIT, type DiscordAdapterConfig } from "./config.ts";
import { checkDiscordAccess } from "./connect/check.ts";
import { createDiscordClient } from "./connect/client.ts";
import { connectClient } from "./connect/connect.ts";
import { isAllowed } from "./receive/allowlist.ts";
import { toInboundMessage } from "./receive/inbound-message.ts";
import { messageFacts } from "./receive/message-facts.ts";
import { PLATFORM, placeOf } from "./receive/places.ts";
import { ChannelPoster } from "./send/channel-poster.ts";
import { InteractionReplies } from "./send/interaction-replies.ts";
import { degradeTables } from "./send/tables.ts";
import { ThreadNames, threadNameFor } from "./send/thread-names.ts";
import { TypingIndicator } from "./typing.ts";

export interface DiscordAdapterDeps {
  readonly logger?: Logger;
}

interface Connection {
  readonly client: Client<true>;
  readonly poster: ChannelPoster;
}

/**
 * Discord through discord.js: maps messages, edits and slash commands to InboundMessages and
 * posts answers into threads, DMs or interaction replies. Decisions about answering stay in core.
 */
export class DiscordAdapter implements Adapter {
  readonly platform = PLATFORM;
  readonly limits: AdapterLimits;
  readonly #config: DiscordAdapterConfig;
  readonly #logger: Logger;
  readonly #typing: TypingIndicator;
  readonly #replies = new InteractionReplies();
  readonly #threadNames = new ThreadNames();
  #connection: Connection | undefined;

  constructor(config: DiscordAdapterConfig, deps: DiscordAdapterDeps = {}) {
    this.#config = config;
    this.#logger = deps.logger ?? silentLogger;
    this.limits = { maxMessageLength: config.maxMessageLength };
    this.#typing = new TypingIndicator(config.typingIntervalMs, this.#logger);
  }

  check(): Promise<void> {
    return checkDiscordAccess(this.#config.token, this.#config.apiUrl);
  }

  async start(sink: InboundSink): Promise<void> {
    if (this.#connection) throw new Error("the Discord adapter is already started");
    const client = createDiscordClient(this.#config);
    const slash = new SlashCommandReceiver({
      allow: this.#config,
      replies: this.#replies,
      sink,
      logger: this.#logger,
    });
    client.on(Events.MessageCreate, (message) => void this.#receive(client, sink, message, false));
    client.on(Events.MessageUpdate, (before, after) => {
      // Only a change of text is an edit; thread creation, embeds unfurling etc. also send updates.
      if (!before.partial && before.content === after.content) return;
      void this.#receive(client, sink, after, true);
    });
    client.on(Events.InteractionCreate, (interaction) => {
      if (interaction.isChatInputCommand()) void slash.receive(interaction);
    });
    client.on(Events.Error, (error) => this.#logger.error("Discord client error", { error }));
    client.on(Events.ShardError, (error) => this.#logger.warn("Discord gateway connection error", { error }));
    client.on(Events.ShardReconnecting, () => this.#logger.info("reconnecting to the Discord gateway"));
    await connectClient(client, this.#config.token, this.#config.apiUrl);
    const ready = client as Client<true>;
    this.#logger.info("connected to Discord", { user: ready.user.tag, guilds: ready.guilds.cache.size });
    const poster = new ChannelPoster(ready, this.#config, this.#threadNames, this.#logger);
    this.#connection = { client: ready, poster };
    await registerSlashCommands(ready, this.#config, this.#logger);
  }

  async stop(): Promise<void> {
    this.#typing.stopAll();
    const connection = this.#connection;
    this.#connection = undefined;
    // Closing is not a reconnect or an error worth logging.
    connection?.client.removeAllListeners();
    await connection?.client.destroy();
  }

  async post(message: OutboundMessage): Promise<PostedMessage> {
    const place = placeOf(message.conversation);
    const formatted = degradeTables(message.text);
    // Rewriting tables can lengthen a chunk past Discord's limit; split again rather than fail.
    const parts =
      formatted.length <= DISCORD_MESSAGE_LIMIT
        ? [formatted]
        : chunkMarkdown(formatted, DISCORD_MESSAGE_LIMIT);
    const ids: string[] = [];
    for (const part of parts) {
      if (this.#replies.routes(message.replyTo)) ids.push(await this.#replies.post(message.replyTo, part));
      else ids.push(await this.#connected().poster.send(place, part, message.replyTo));
    }
    const [first] = ids;
    if (first === undefined) throw new Error("nothing to post: the message text is empty");
    return { id: first, conversation: message.conversation };
  }

  async setTyping(conversation: ConversationRef, active: boolean): Promise<void> {
    const key = encodeConversationKey(conversation);
    if (!active) {
      this.#typing.stop(key);
      return;
    }
    const place = placeOf(conversation);
    if (place.kind === "thread" && this.#replies.isAnsweringConversation(place.rootId)) return;
    const { poster } = this.#connected();
    await this.#typing.start(key, async () => {
      await (await poster.typingTarget(place)).sendTyping();
    });
  }

  #connected(): Connection {
    if (!this.#connection) throw new Error("the Discord adapter is not started");
    return this.#connection;
  }

  async #receive(
    client: Client,
    sink: InboundSink,
    message: Message | PartialMessage,
    isEdit: boolean,
  ): Promise<void> {
    try {
      const facts = await messageFacts(message, isEdit);
      if (!facts || !client.user || !isAllowed(facts.location, this.#config)) return;
      const botRole = message.guild?.members.me?.roles.botRole;
      const inbound = toInboundMessage(facts, {
        userId: client.user.id,
        roleIds: botRole ? [botRole.id] : [],
      });
      if (!inbound) return;
      if (facts.location.kind === "channel" && !isEdit) {
        this.#threadNames.remember(facts.id, threadNameFor(inbound.text, facts.author.displayName));
      }
      await sink(inbound);
    } catch (error) {
      this.#logger.error("could not hand a Discord message to the engine", { id: message.id, error });
    }
  }
}
