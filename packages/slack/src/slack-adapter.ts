import { WebClient } from "@slack/web-api";
import {
  type Adapter,
  type AdapterAttachments,
  type AdapterCheck,
  type AdapterFiles,
  type AdapterStreaming,
  type ApprovalDecider,
  type ApprovalPrompt,
  adapterStreaming,
  type CommandSummary,
  type ConversationRef,
  type InboundMessage,
  type InboundSink,
  type Logger,
  type OutboundMessage,
  type PlaceNames,
  type PostedMessage,
  requestFetch,
  type Store,
  silentLogger,
  type TeamIdentities,
} from "@switchboard/core/adapter";
import { registerApprovalActions } from "./approvals/approval-actions.ts";
import {
  DEFAULT_COMMAND_WORDS,
  type ResolvedSlackConfig,
  resolveConnection,
  type SlackAdapterConfig,
  type SlackConnection,
  slackAdapterConfigSchema,
} from "./config.ts";
import { type BoltConnection, createBoltConnection } from "./connect/bolt-connection.ts";
import { boltLoggerFrom } from "./connect/bolt-logger.ts";
import type { ScopeNeeds } from "./connect/scopes.ts";
import { type BotIdentity, verifyAppToken, verifyBotToken } from "./connect/verify-credentials.ts";
import { directConversation, messageId, postTargetOf, SLACK_PLATFORM } from "./conversations.ts";
import { slackChannelNames } from "./places/channel-names.ts";
import { slackUserTimeZone } from "./places/user-time-zones.ts";
import { registerListeners } from "./receive/bolt-listeners.ts";
import { MessageReceiver } from "./receive/message-receiver.ts";
import { CUSTOMIZE_SCOPE } from "./send/agent-face.ts";
import { SlackAnswerStream } from "./send/answer-stream.ts";
import { ResponseUrls } from "./send/response-urls.ts";
import { FILES_READ_HINT, slackAttachments, slackFileOrigins, slackFiles } from "./send/slack-files.ts";
import { MARKDOWN_CHUNK_LIMIT, SlackPoster } from "./send/slack-poster.ts";
import { wellFormed } from "./text/well-formed.ts";
import { WorkingIndicator } from "./working/working-indicator.ts";

export interface SlackAdapterDeps {
  readonly logger?: Logger;
  /**
   * The store every process of a deployment shares: slash commands' response_urls are kept there,
   * so a worker answers a command used where the bot is not a member the way the receiver would.
   */
  readonly store?: Store;
}

/**
 * Web API calls are retried on network and HTTP errors, briefly: a chat answer that is minutes late
 * is worse than a logged failure.
 */
const RETRY = { retries: 3, factor: 2, minTimeout: 500, maxTimeout: 5_000 };

/** Slack through Bolt: events in (HTTP Events API or Socket Mode), answers out through the Web API. */
export class SlackAdapter implements Adapter {
  readonly platform = SLACK_PLATFORM;
  /** Slack takes a message starting with `/word` as a slash command, so `/reset` never reaches the bot. */
  readonly commandPrefix = "!";
  /** Replies sit in their thread (the conversation); Slack events never name a message replied to. */
  readonly repliesNameTheirTarget = false;
  readonly limits = { maxMessageLength: MARKDOWN_CHUNK_LIMIT };
  readonly streaming: AdapterStreaming | undefined;
  readonly attachments: AdapterAttachments;
  readonly files: AdapterFiles;
  readonly #config: ResolvedSlackConfig;
  readonly #connection: SlackConnection;
  readonly #logger: Logger;
  readonly #client: WebClient;
  readonly #poster: SlackPoster;
  readonly #working: WorkingIndicator;
  readonly #responseUrls: ResponseUrls;
  #bolt: BoltConnection | undefined;
  /** Set when Slack refused its streaming methods to this app: answers grow by chat.update instead. */
  #nativeStreamingRefused = false;
  /** The engine's commands, as `@bot word` forms (unless configured by hand). */
  #engineCommandWords: readonly string[] | undefined;
  #port: number | undefined;
  #approvals: ApprovalDecider | undefined;
  readonly #channelNames: (channel: string) => Promise<string | undefined>;
  readonly #userTimeZone: (userId: string) => Promise<string | undefined>;
  /** Some agent has a `display`: its messages show its name. */
  #identities = false;
  /**
   * The token has chat:write.customize (or Slack did not say which scopes it has): agents' messages
   * carry their own name and icon; without it, the name goes in front of the text in bold.
   */
  #customize = false;

  constructor(config: SlackAdapterConfig, deps: SlackAdapterDeps = {}) {
    this.#config = slackAdapterConfigSchema.parse(config);
    this.#connection = resolveConnection(this.#config);
    this.#logger = deps.logger ?? silentLogger;
    const clientOptions = {
      slackApiUrl: this.#config.apiUrl,
      logger: boltLoggerFrom(this.#logger),
      // Every answer is a call of this client: its requests go out without fetch's per-call cost.
      fetch: requestFetch,
      retryConfig: RETRY,
      // A 429 comes back to the caller at once, with Slack's Retry-After. Waited out by the client
      // instead, it pauses the client's whole queue: one method past its rate tier (a working
      // reaction in a busy channel) would hold every answer in every channel for that long. The
      // outbox waits out a refused post or edit itself (outbox/retry-delivery.ts), the working
      // indicator stays off until the Retry-After (working/working-indicator.ts), a preview update
      // and a name lookup give up and say so in the log.
      rejectRateLimitedCalls: true,
    };
    this.#client = new WebClient(this.#config.botToken, clientOptions);
    // New messages are never posted twice by the client's own retries (Slack has no idempotency
    // key): the outbox retries a failed post, looking for it in the thread first.
    const postClient = new WebClient(this.#config.botToken, {
      ...clientOptions,
      retryConfig: { retries: 0 },
    });
    this.#channelNames = slackChannelNames(this.#client, this.#logger);
    this.#userTimeZone = slackUserTimeZone(this.#client, this.#logger);
    this.#responseUrls = new ResponseUrls(deps.store?.namespace<string>("slack"));
    this.#poster = new SlackPoster({
      client: this.#client,
      postClient,
      responseUrlOf: (id) => this.#responseUrls.find(id),
      customize: () => this.#customize,
    });
    this.streaming = adapterStreaming(this.#config, (message) => this.#openStream(message));
    this.attachments = slackAttachments(this.#config.botToken, slackFileOrigins(this.#config.apiUrl));
    this.files = slackFiles(this.#client);
    this.#working = new WorkingIndicator({
      client: this.#client,
      logger: this.#logger,
      mode: this.#config.workingIndicator,
      status: this.#config.workingStatus,
      reaction: this.#config.workingReaction,
    });
  }

  async describePlace(conversation: ConversationRef): Promise<PlaceNames | undefined> {
    const room = await this.#channelNames(postTargetOf(conversation).channel);
    return room === undefined ? undefined : { room };
  }

  /** The person's time zone from their Slack profile (`users.info`; needs `users:read`). */
  userTimeZone(userId: string): Promise<string | undefined> {
    return this.#userTimeZone(userId);
  }

  /**
   * A thread a top-level message started (in a channel or a DM) gets the bot's own posts as new
   * messages in that channel or DM; a thread someone replied into keeps them in the thread.
   */
  placeForPosts(conversation: ConversationRef, startedBy: string | undefined) {
    const target = postTargetOf(conversation);
    const [team = ""] = conversation.path;
    const channel = target.kind === "top-level" ? conversation : directConversation(team, target.channel);
    const topLevel = target.kind === "thread" && startedBy === messageId(target.channel, target.threadTs);
    return { post: topLevel ? channel : conversation, channel };
  }

  /** HTTP mode, while running: the port Slack's requests go to (useful with `port: 0`). */
  get port(): number | undefined {
    return this.#port;
  }

  get #scopeNeeds(): ScopeNeeds {
    const { directMessages, workingIndicator } = this.#config;
    return {
      directMessages,
      reactions: workingIndicator === "auto" || workingIndicator === "reaction",
      identities: this.#identities,
    };
  }

  /** Agents with a `display` post under their own name and icon (with chat:write.customize). */
  useIdentities(identities: TeamIdentities): void {
    this.#identities = Object.keys(identities.agents).length > 0;
  }

  /** Who the bot is, and whether it may post under agents' names. */
  async #verifyBotToken(): Promise<BotIdentity> {
    const identity = await verifyBotToken(this.#client, this.#scopeNeeds, this.#logger);
    this.#customize = identity.grantedScopes?.includes(CUSTOMIZE_SCOPE) ?? true;
    return identity;
  }

  useCommands(commands: readonly CommandSummary[]): void {
    this.#engineCommandWords = commands.map((command) => command.name);
  }

  /** `access.slack`: the channel (`C…`, `D…`) and the workspace (`T…`) of a message. */
  accessPlace(message: InboundMessage): { place: string; space: string } {
    const [team = "", channel = ""] = message.conversation.path;
    return { place: channel, space: team };
  }

  /** Approve / Deny buttons on prompts; presses are decided by core. */
  useApprovals(decider: ApprovalDecider): void {
    this.#approvals = decider;
  }

  /** Configured words win; else every engine command; else the core set. */
  get commandWords(): readonly string[] {
    return this.#config.commandWords ?? this.#engineCommandWords ?? DEFAULT_COMMAND_WORDS;
  }

  async check(): Promise<AdapterCheck> {
    const identity = await this.#verifyBotToken();
    if (this.#connection.mode === "socket")
      await verifyAppToken(this.#connection.appToken, this.#config.apiUrl);
    const warnings: string[] = [];
    if (identity.missingScopes.includes("files:read"))
      warnings.push(`files people share cannot be read: ${FILES_READ_HINT}`);
    if (identity.missingScopes.includes("files:write"))
      warnings.push(
        "files the team makes cannot be uploaded: add the files:write scope (OAuth & Permissions → Bot Token Scopes) and reinstall the app",
      );
    if (identity.missingScopes.includes(CUSTOMIZE_SCOPE))
      warnings.push(
        `agents cannot post under their own names and icons: add the ${CUSTOMIZE_SCOPE} scope (OAuth & Permissions → Bot Token Scopes) and reinstall the app; until then each agent's name is written in bold in front of its messages`,
      );
    return { warnings };
  }

  async start(sink: InboundSink): Promise<void> {
    if (this.#bolt) throw new Error("the Slack adapter is already running");
    const identity = await this.#verifyBotToken();
    const { channels, directMessages, dmConversations, slashCommand } = this.#config;
    const settings = {
      botUserId: identity.userId,
      botId: identity.botId,
      botName: identity.name,
      commandWords: this.commandWords,
      channels,
      directMessages,
      dmConversations,
    };
    const messages = new MessageReceiver({
      settings,
      teamId: identity.teamId,
      sink,
      logger: this.#logger,
      onPersonMessage: (message, channel, ts) => this.#working.noteOrigin(message.conversation, channel, ts),
    });
    const bolt = createBoltConnection({
      connection: this.#connection,
      botToken: this.#config.botToken,
      identity,
      apiUrl: this.#config.apiUrl,
      logger: this.#logger,
      messages,
    });
    registerListeners(bolt.app, {
      settings,
      slashCommand,
      sink,
      logger: this.#logger,
      messages,
      onResponseUrl: (id, url) => this.#responseUrls.keep(id, url),
    });
    registerApprovalActions(bolt.app, {
      decider: () => this.#approvals,
      client: this.#client,
      logger: this.#logger,
    });
    const { port } = await bolt.start();
    this.#bolt = bolt;
    this.#port = port;
    this.#logger.info("connected to Slack", {
      mode: this.#connection.mode,
      team: identity.teamId,
      bot: identity.userId,
      ...(port === undefined ? {} : { port }),
    });
  }

  /** Answers go out through the Web API alone; events reach another process. */
  async startSendOnly(): Promise<void> {
    const identity = await this.#verifyBotToken();
    this.#logger.info("Slack send-only (Web API)", { team: identity.teamId, bot: identity.userId });
  }

  async stop(): Promise<void> {
    const bolt = this.#bolt;
    this.#bolt = undefined;
    this.#port = undefined;
    await bolt?.stop();
  }

  post(message: OutboundMessage): Promise<PostedMessage> {
    return this.#poster.post({ ...message, text: wellFormed(message.text) });
  }

  findPosted(conversation: ConversationRef, idempotencyKey: string): Promise<PostedMessage | undefined> {
    return this.#poster.findPosted(conversation, idempotencyKey);
  }

  edit(posted: PostedMessage, text: string, approval?: ApprovalPrompt): Promise<void> {
    return this.#poster.edit(posted, wellFormed(text), approval);
  }

  showDecision(
    prompt: PostedMessage,
    text: string,
    decision: { approved: boolean; by: string },
  ): Promise<void> {
    return this.#poster.showDecision(prompt, wellFormed(text), decision);
  }

  /** Progress goes into the thread status where one shows (assistant threads). */
  showProgress(conversation: ConversationRef, status: string): Promise<boolean> {
    return this.#working.progress(conversation, status);
  }

  #openStream(message: OutboundMessage): SlackAnswerStream {
    return new SlackAnswerStream({
      client: this.#client,
      poster: this.#poster,
      message,
      customize: this.#customize,
      nativeAllowed: !this.#nativeStreamingRefused,
      onNativeRefused: (slackError) => {
        this.#nativeStreamingRefused = true;
        this.#logger.info("Slack refused its streaming methods to this app; answers grow by edits instead", {
          slackError,
        });
      },
    });
  }

  setTyping(conversation: ConversationRef, active: boolean): Promise<void> {
    return active ? this.#working.start(conversation) : this.#working.stop(conversation);
  }
}
