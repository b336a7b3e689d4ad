import {
  type Adapter,
  type AdapterAttachments,
  type AdapterCheck,
  type AdapterFiles,
  type AdapterLimits,
  type AdapterStreaming,
  type ApprovalDecider,
  type ApprovalPrompt,
  adapterStreaming,
  type CommandSummary,
  type ConversationRef,
  encodeConversationKey,
  type InboundMessage,
  type InboundSink,
  type Logger,
  type OutboundMessage,
  type PlaceNames,
  type PostedMessage,
  type Store,
  silentLogger,
  type TeamIdentities,
} from "@switchboard/core/adapter";
import type { Client } from "discord.js";
import { registerSlashCommands } from "./commands/register-commands.ts";
import { SlashCommandReceiver } from "./commands/slash-command-receiver.ts";
import { SLASH_COMMANDS, type SlashCommand, slashCommandsFor } from "./commands/slash-commands.ts";
import type { DiscordAdapterConfig } from "./config.ts";
import { checkDiscordAccess } from "./connect/check.ts";
import { createDiscordClient } from "./connect/client.ts";
import { connectClient } from "./connect/connect.ts";
import { openSendOnlyClient } from "./connect/send-only.ts";
import { skipUnreadablePackets } from "./library-patches.ts";
import { discordPlaceNames } from "./places/channel-names.ts";
import { discordAttachmentDownloads, discordFileOrigins } from "./receive/attachment-downloads.ts";
import { registerGatewayListeners } from "./receive/gateway-listeners.ts";
import { MessageReceiver, type Receiving } from "./receive/message-receiver.ts";
import { conversationOf, DM_SPACE, PLATFORM, placeOf } from "./receive/places.ts";
import { AgentPosts } from "./send/agent-posts.ts";
import { AgentWebhooks, valuesInMemory } from "./send/agent-webhooks.ts";
import { ChannelPoster } from "./send/channel-poster.ts";
import { CommandAnswers } from "./send/command-answers.ts";
import { discordFiles } from "./send/discord-files.ts";
import { DiscordPoster } from "./send/discord-poster.ts";
import { SharedInteractions } from "./send/shared-interactions.ts";
import { ThreadNames } from "./send/thread-names.ts";
import { TypingIndicator } from "./typing.ts";

export interface DiscordAdapterDeps {
  readonly logger?: Logger;
  /**
   * The store every process of a deployment shares: slash-command interaction tokens are kept
   * there, so whichever process delivers an answer sends it through the command's interaction.
   */
  readonly store?: Store;
}

interface Connection {
  readonly client: Client;
  readonly poster: ChannelPoster;
  /** Started send-only: REST alone, no gateway, so no interaction of its own to answer through. */
  readonly sendOnly: boolean;
}

/**
 * Discord through discord.js: maps messages, edits and slash commands to InboundMessages and
 * posts answers into threads, DMs or interaction replies. Decisions about answering stay in core.
 */
export class DiscordAdapter implements Adapter {
  readonly platform = PLATFORM;
  /** One gateway connection per bot (unsharded): in a cluster, only the elected ingress connects. */
  readonly exclusiveInbound = true;
  readonly limits: AdapterLimits;
  readonly streaming: AdapterStreaming | undefined;
  readonly attachments: AdapterAttachments;
  readonly files: AdapterFiles;
  readonly #config: DiscordAdapterConfig;
  readonly #logger: Logger;
  readonly #typing: TypingIndicator;
  readonly #answers: CommandAnswers;
  readonly #threadNames = new ThreadNames();
  #slashCommands: readonly SlashCommand[] = SLASH_COMMANDS;
  #connection: Connection | undefined;
  #approvals: ApprovalDecider | undefined;
  readonly #agentWebhooks: AgentWebhooks;
  readonly #poster: DiscordPoster;
  /** Some agent has a `display`: its messages go through the channel's webhook under its name. */
  #identities = false;
  readonly #receiver: MessageReceiver;
  /** Where received messages go while the gateway is connected. */
  #sink: InboundSink | undefined;

  constructor(config: DiscordAdapterConfig, deps: DiscordAdapterDeps = {}) {
    this.#config = config;
    this.#logger = deps.logger ?? silentLogger;
    this.limits = { maxMessageLength: config.maxMessageLength };
    this.streaming = adapterStreaming(config);
    this.#typing = new TypingIndicator(config.typingIntervalMs, this.#logger);
    const kv = deps.store?.namespace<string>("discord");
    this.#answers = new CommandAnswers(kv && new SharedInteractions(kv), () => this.#connected().client);
    this.attachments = discordAttachmentDownloads({
      client: () => this.#connected().client,
      origins: discordFileOrigins(config.apiUrl),
    });
    this.files = discordFiles(() => this.#connected().poster);
    const kept = kv ?? valuesInMemory();
    this.#agentWebhooks = new AgentWebhooks({
      client: () => this.#connected().client,
      kept,
      logger: this.#logger,
      apiUrl: config.apiUrl,
    });
    this.#poster = new DiscordPoster({
      answers: this.#answers,
      agentPosts: new AgentPosts(this.#agentWebhooks, kept),
      channels: () => this.#connected().poster,
      identities: () => this.#identities,
    });
    this.#receiver = new MessageReceiver({
      allow: config,
      threadNames: this.#threadNames,
      logger: this.#logger,
      receiving: () => this.#receiving(),
    });
  }

  /** Agents with a `display` post through a channel webhook under their name and avatar. */
  useIdentities(identities: TeamIdentities): void {
    this.#identities = Object.keys(identities.agents).length > 0;
  }

  /** Every chat command the engine knows becomes a slash command (registered at start). */
  useCommands(commands: readonly CommandSummary[]): void {
    this.#slashCommands = slashCommandsFor(commands);
  }

  /** `access.discord`: the channel (a thread's parent) and the server (guild) of a message. */
  accessPlace(message: InboundMessage): { place: string; space?: string } {
    const [space = "", channel = ""] = message.conversation.path;
    return space === DM_SPACE ? { place: channel } : { place: channel, space };
  }

  /** Approve / Deny buttons on prompts; presses are decided by core. */
  useApprovals(decider: ApprovalDecider): void {
    this.#approvals = decider;
  }

  async check(): Promise<AdapterCheck> {
    await checkDiscordAccess(this.#config.token, this.#config.apiUrl);
    return { warnings: [] };
  }

  async start(sink: InboundSink): Promise<void> {
    if (this.#connection) throw new Error("the Discord adapter is already started");
    const client = createDiscordClient(this.#config);
    const slash = new SlashCommandReceiver({
      allow: this.#config,
      answers: this.#answers,
      sink,
      logger: this.#logger,
      commands: () => this.#slashCommands,
    });
    skipUnreadablePackets(client, this.#logger);
    this.#sink = sink;
    registerGatewayListeners(client, {
      sink,
      messages: this.#receiver,
      slash,
      approvals: () => this.#approvals,
      logger: this.#logger,
    });
    await connectClient(client, this.#config.token, this.#config.apiUrl);
    const ready = client as Client<true>;
    this.#logger.info("connected to Discord", { user: ready.user.tag, guilds: ready.guilds.cache.size });
    const poster = new ChannelPoster(
      ready,
      { ...this.#config, gatewayCache: true },
      this.#threadNames,
      this.#logger,
    );
    this.#connection = { client: ready, poster, sendOnly: false };
    await registerSlashCommands(ready, this.#config, this.#logger, this.#slashCommands);
    // Connected again in this process (a cluster ingress leading again): read back what it missed.
    this.#receiver.resume();
  }

  /**
   * Delivers without receiving: posts, edits, typing and thread starts over REST, with no gateway
   * connection (another process holds it). Slash-command answers go through the command's
   * interaction webhook, with the token the receiving process kept in the shared store.
   */
  async startSendOnly(): Promise<void> {
    if (this.#connection) throw new Error("the Discord adapter is already started");
    const client = await openSendOnlyClient(this.#config, this.#logger);
    const poster = new ChannelPoster(
      client,
      { ...this.#config, gatewayCache: false },
      this.#threadNames,
      this.#logger,
    );
    this.#connection = { client, poster, sendOnly: true };
  }

  async stop(): Promise<void> {
    this.#receiver.pause();
    this.#sink = undefined;
    this.#typing.stopAll();
    await this.#agentWebhooks.close();
    const connection = this.#connection;
    this.#connection = undefined;
    // Closing is not a reconnect or an error worth logging.
    connection?.client.removeAllListeners();
    await connection?.client.destroy();
  }

  post(message: OutboundMessage): Promise<PostedMessage> {
    return this.#poster.post(message);
  }

  /** A streamed answer grows: the message's content is replaced (tables rewritten as when posting). */
  edit(posted: PostedMessage, text: string, approval?: ApprovalPrompt): Promise<void> {
    return this.#poster.edit(posted, text, approval);
  }

  /** A prompt decided off its buttons (typed, console): the buttons go, the outcome shows. */
  showDecision(
    prompt: PostedMessage,
    text: string,
    decision: { approved: boolean; by: string },
  ): Promise<void> {
    return this.#poster.showDecision(prompt, text, decision);
  }

  /**
   * A conversation a top-level channel message started gets the bot's own posts (a schedule's) as
   * new messages in that channel; one in a thread or a DM keeps them there.
   */
  placeForPosts(conversation: ConversationRef, startedBy: string | undefined) {
    const place = placeOf(conversation);
    if (place.kind !== "thread") return { post: conversation, channel: conversation };
    const channel = conversationOf({ kind: "channel", guildId: place.guildId, channelId: place.channelId });
    return { post: startedBy === place.rootId ? channel : conversation, channel };
  }

  async describePlace(conversation: ConversationRef): Promise<PlaceNames | undefined> {
    const client = this.#connection?.client;
    return client ? discordPlaceNames(client, placeOf(conversation)) : undefined;
  }

  async setTyping(conversation: ConversationRef, active: boolean): Promise<void> {
    const key = encodeConversationKey(conversation);
    if (!active) {
      this.#typing.stop(key);
      return;
    }
    const place = placeOf(conversation);
    const { poster, sendOnly } = this.#connected();
    if (place.kind === "thread" && (await this.#answers.isAnsweringConversation(place.rootId, sendOnly)))
      return;
    await this.#typing.start(key, async () => {
      await (await poster.typingTarget(place)).sendTyping();
    });
  }

  #connected(): Connection {
    if (!this.#connection) throw new Error("the Discord adapter is not started");
    return this.#connection;
  }

  /** What reading back hands messages to: only the process that holds the gateway reads back. */
  #receiving(): Receiving {
    const connection = this.#connection;
    const sink = this.#sink;
    if (!connection || connection.sendOnly || !sink)
      throw new Error("the Discord gateway is not connected in this process");
    return { client: connection.client, sink };
  }
}
