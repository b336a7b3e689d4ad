import {
  type Adapter,
  type AdapterAttachments,
  type AdapterCheck,
  type AdapterFiles,
  type AdapterLimits,
  type AdapterStreaming,
  type AgentIdentity,
  type ApprovalDecider,
  type ApprovalPrompt,
  adapterStreaming,
  type CommandSummary,
  type ConversationRef,
  chunkMarkdown,
  decisionLine,
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
  withNamePrefix,
} from "@switchboard/core/adapter";
import {
  type Client,
  DiscordAPIError,
  Events,
  type Message,
  type PartialMessage,
  RESTJSONErrorCodes,
} from "discord.js";
import { approvalButtons } from "./approvals/approval-buttons.ts";
import { answerApprovalPress, withOutcome } from "./approvals/approval-presses.ts";
import { registerSlashCommands } from "./commands/register-commands.ts";
import { SlashCommandReceiver } from "./commands/slash-command-receiver.ts";
import {
  isInteractionMessageId,
  SLASH_COMMANDS,
  type SlashCommand,
  slashCommandsFor,
} from "./commands/slash-commands.ts";
import { DISCORD_MESSAGE_LIMIT, type DiscordAdapterConfig } from "./config.ts";
import { checkDiscordAccess } from "./connect/check.ts";
import { createDiscordClient } from "./connect/client.ts";
import { connectClient } from "./connect/connect.ts";
import { openSendOnlyClient } from "./connect/send-only.ts";
import { skipUnreadablePackets } from "./library-patches.ts";
import { discordPlaceNames } from "./places/channel-names.ts";
import { isAllowed } from "./receive/allowlist.ts";
import { discordAttachmentDownloads, discordFileOrigins } from "./receive/attachment-downloads.ts";
import { messagesAfter } from "./receive/channel-history.ts";
import { toInboundMessage } from "./receive/inbound-message.ts";
import { messageFacts } from "./receive/message-facts.ts";
import { MissedMessages } from "./receive/missed-messages.ts";
import { conversationOf, DM_SPACE, PLATFORM, placeOf } from "./receive/places.ts";
import { AgentPosts } from "./send/agent-posts.ts";
import { AgentWebhooks, valuesInMemory } from "./send/agent-webhooks.ts";
import { ChannelPoster } from "./send/channel-poster.ts";
import { CommandAnswers } from "./send/command-answers.ts";
import { discordFiles } from "./send/discord-files.ts";
import { discordNonce } from "./send/nonce.ts";
import { SharedInteractions } from "./send/shared-interactions.ts";
import { degradeTables } from "./send/tables.ts";
import { ThreadNames, threadNameFor } from "./send/thread-names.ts";
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
  readonly #agentPosts: AgentPosts;
  readonly #agentWebhooks: AgentWebhooks;
  /** Some agent has a `display`: its messages go through the channel's webhook under its name. */
  #identities = false;
  /** Messages the engine refused (store down), read back from the channels' history once it takes them. */
  readonly #missed: MissedMessages<Message>;
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
    this.#agentPosts = new AgentPosts(this.#agentWebhooks, kept);
    this.#missed = this.#readingBack();
  }

  /** Agents with a `display` post through a channel webhook under their name and avatar. */
  useIdentities(identities: TeamIdentities): void {
    this.#identities = Object.keys(identities.agents).length > 0;
  }

  /** Every chat command the engine knows becomes a slash command (registered at start). */
  useCommands(commands: readonly CommandSummary[]): void {
    this.#slashCommands = slashCommandsFor(commands);
  }

  /** Approve / Deny buttons on prompts; presses are decided by core. */
  /** `access.discord`: the channel (a thread's parent) and the server (guild) of a message. */
  accessPlace(message: InboundMessage): { place: string; space?: string } {
    const [space = "", channel = ""] = message.conversation.path;
    return space === DM_SPACE ? { place: channel } : { place: channel, space };
  }

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
    client.on(Events.MessageCreate, (message) => void this.#receive(client, sink, message, false));
    client.on(Events.MessageUpdate, (before, after) => {
      // Only a change of text is an edit; thread creation, embeds unfurling etc. also send updates.
      if (!before.partial && before.content === after.content) return;
      void this.#receive(client, sink, after, true);
    });
    client.on(Events.InteractionCreate, (interaction) => {
      if (interaction.isChatInputCommand()) void slash.receive(interaction);
      else if (interaction.isButton())
        answerApprovalPress(interaction, this.#approvals, this.#logger).catch((error: unknown) =>
          this.#logger.error("could not answer an approval button", { id: interaction.id, error }),
        );
    });
    client.on(Events.Error, (error) => this.#logger.error("Discord client error", { error }));
    client.on(Events.ShardError, (error) => this.#logger.warn("Discord gateway connection error", { error }));
    client.on(Events.ShardReconnecting, () => this.#logger.info("reconnecting to the Discord gateway"));
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
    this.#missed.resume();
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
    this.#missed.pause();
    this.#sink = undefined;
    this.#typing.stopAll();
    await this.#agentWebhooks.close();
    const connection = this.#connection;
    this.#connection = undefined;
    // Closing is not a reconnect or an error worth logging.
    connection?.client.removeAllListeners();
    await connection?.client.destroy();
  }

  async post(message: OutboundMessage): Promise<PostedMessage> {
    const place = placeOf(message.conversation);
    const { replyTo, identity } = message;
    const command = isInteractionMessageId(replyTo);
    // An agent speaks through the channel's webhook; where there is none, its name goes in front.
    const route =
      identity && !command
        ? await this.#agentPosts.route(await this.#connected().poster.placeFor(place, true), identity)
        : undefined;
    const formatted = degradeTables(
      identity && !route ? withNamePrefix(message.text, identity.name) : message.text,
    );
    // Rewriting tables can lengthen a chunk past Discord's limit; split again rather than fail.
    const parts =
      formatted.length <= DISCORD_MESSAGE_LIMIT
        ? [formatted]
        : chunkMarkdown(formatted, DISCORD_MESSAGE_LIMIT);
    const ids: string[] = [];
    for (const [index, part] of parts.entries()) {
      const key = message.idempotencyKey === undefined ? undefined : `${message.idempotencyKey}:${index}`;
      const buttons = buttonsOn(message.approval, index === parts.length - 1);
      // A slash command's answer never goes into the channel: it may be private.
      if (command) ids.push(await this.#answers.post(replyTo, part, buttons));
      else if (route) ids.push(await this.#agentPosts.post(route, part, key, buttons));
      else
        ids.push(
          await this.#connected().poster.send(
            place,
            part,
            replyTo,
            key === undefined ? undefined : discordNonce(key),
            buttons,
          ),
        );
    }
    const [first] = ids;
    if (first === undefined) throw new Error("nothing to post: the message text is empty");
    return { id: first, conversation: message.conversation };
  }

  /** A streamed answer grows: the message's content is replaced (tables rewritten as when posting). */
  async edit(posted: PostedMessage, text: string, approval?: ApprovalPrompt): Promise<void> {
    const { identity } = posted;
    const [first, ...rest] = chunkMarkdown(degradeTables(text), DISCORD_MESSAGE_LIMIT);
    if (first === undefined) return;
    const buttons = buttonsOn(approval, rest.length === 0);
    const named = identity ? degradeTables(withNamePrefix(first, identity.name)) : first;
    await this.#replace(posted, first, named, buttons);
    // Only a rewritten table can outgrow the limit; what does not fit follows, never cut off.
    for (const [index, part] of rest.entries())
      await this.post({
        conversation: posted.conversation,
        text: part,
        ...(identity ? { identity } : {}),
        ...(approval && index === rest.length - 1 ? { approval } : {}),
      });
  }

  /** A prompt decided off its buttons (typed, console): the buttons go, the outcome shows. */
  async showDecision(prompt: PostedMessage, text: string, decision: { approved: boolean; by: string }) {
    const line = decisionLine(decision);
    const { identity } = prompt;
    const content = withOutcome(degradeTables(text), line);
    const named = identity ? withOutcome(degradeTables(withNamePrefix(text, identity.name)), line) : content;
    await this.#replace(prompt, content, named, []);
  }

  /**
   * Replaces a message's content: through the interaction for a command's answer, through the
   * webhook for an agent's webhook message (`content`), as the bot otherwise (`named`: with the
   * agent's name in front, as it was posted).
   */
  async #replace(
    posted: PostedMessage,
    content: string,
    named: string,
    buttons: ReturnType<typeof buttonsOn>,
  ): Promise<void> {
    const command = await this.#answers.commandOf(posted.id);
    if (command !== undefined) {
      await this.#answers.edit(command, posted.id, named, buttons);
      return;
    }
    const place = placeOf(posted.conversation);
    const { poster } = this.#connected();
    const webhookRoute = async (identity: AgentIdentity | undefined) =>
      this.#agentPosts.route(await poster.placeFor(place, false), identity);
    if (posted.identity) {
      const route = await webhookRoute(posted.identity);
      if (route && (await this.#agentPosts.edit(route, posted.id, content, named, buttons))) return;
    }
    try {
      await poster.edit(place, posted.id, named, buttons);
    } catch (error) {
      // A webhook message whose writer has no display now (a handoff mid-answer): still the webhook's to edit.
      const anotherAuthor =
        error instanceof DiscordAPIError &&
        error.code === RESTJSONErrorCodes.CannotEditMessageAuthoredByAnotherUser;
      const route = anotherAuthor && this.#identities ? await webhookRoute(undefined) : undefined;
      if (!route || !(await this.#agentPosts.edit(route, posted.id, content, content, buttons))) throw error;
    }
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

  async #receive(
    client: Client,
    sink: InboundSink,
    message: Message | PartialMessage,
    isEdit: boolean,
  ): Promise<void> {
    try {
      await this.#handOver(client, sink, message, isEdit);
      if (!isEdit) this.#missed.taken(message.channelId, message.id);
    } catch (error) {
      if (error instanceof SinkRefusedError) {
        // The gateway never delivers it again: read back from the channel's history later. An
        // edit is not: the message's first text was taken or is read back with its new text.
        if (!isEdit) this.#missed.refused(message.channelId, message.id);
        this.#logger.warn(
          isEdit
            ? "could not hand a Discord edit to the engine; the edit is not answered"
            : "could not hand a Discord message to the engine; it is read back from the channel once the engine takes messages again",
          { id: message.id, error: error.cause },
        );
        return;
      }
      this.#logger.error("could not hand a Discord message to the engine", { id: message.id, error });
    }
  }

  /** Resolves once the engine took the message (or it is not one to take); SinkRefusedError otherwise. */
  async #handOver(
    client: Client,
    sink: InboundSink,
    message: Message | PartialMessage,
    isEdit: boolean,
  ): Promise<void> {
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
    try {
      await sink(inbound);
    } catch (error) {
      throw new SinkRefusedError(error);
    }
  }

  #readingBack(): MissedMessages<Message> {
    const logger = this.#logger;
    const receiving = () => {
      const connection = this.#connection;
      const sink = this.#sink;
      if (!connection || connection.sendOnly || !sink)
        throw new Error("the Discord gateway is not connected in this process");
      return { client: connection.client, sink };
    };
    return new MissedMessages<Message>({
      read: (channelId, afterId, limit) => messagesAfter(receiving().client, channelId, afterId, limit),
      handOver: (message) => {
        const { client, sink } = receiving();
        return this.#handOver(client, sink, message, false);
      },
      onCaughtUp: (channelId, handedOver) =>
        logger.info("read back Discord messages the engine had not taken", { channelId, handedOver }),
      onGivenUp: (channelId, reason) =>
        logger.error(
          "gave up reading back Discord messages the engine had not taken; they are not answered",
          {
            channelId,
            reason,
          },
        ),
      onRoundFailed: (channelId, error) =>
        logger.warn("could not read back refused Discord messages yet; trying again", { channelId, error }),
      retryEveryMs: READ_BACK_EVERY_MS,
      windowMs: READ_BACK_WINDOW_MS,
      maxChannels: READ_BACK_MAX_CHANNELS,
    });
  }
}

/** The engine did not take a message (store unreachable, stopping): nothing of it was kept. */
class SinkRefusedError extends Error {
  constructor(cause: unknown) {
    super("the engine did not take the message", { cause });
    this.name = "SinkRefusedError";
  }
}

/**
 * Reading back what the engine refused: a round every 5 s while any channel is behind, for up to an
 * hour after a channel's first refused message (the store outages worth waiting out; a longer one
 * is an incident whose messages people send again), at most 1,000 channels at once.
 */
const READ_BACK_EVERY_MS = 5_000;
const READ_BACK_WINDOW_MS = 60 * 60_000;
const READ_BACK_MAX_CHANNELS = 1_000;

/** The Approve / Deny row goes on the last message of a prompt, under the whole question. */
function buttonsOn(approval: ApprovalPrompt | undefined, last: boolean) {
  return approval && last ? [approvalButtons(approval)] : undefined;
}
