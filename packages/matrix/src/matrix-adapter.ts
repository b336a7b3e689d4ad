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
  type ConversationRef,
  decisionLine,
  type EncryptionCounts,
  type InboundMessage,
  type InboundSink,
  type Logger,
  type OutboundMessage,
  type PlaceNames,
  type PostedMessage,
  type SendOnlyCheck,
  type Store,
  silentLogger,
  type TeamIdentities,
  withNamePrefix,
} from "@switchboard/core/adapter";
import { REACTION_HINT, ReactionApprovals } from "./approvals/approval-reactions.ts";
import { type MatrixAdapterConfig, matrixAdapterConfigSchema, type ResolvedMatrixConfig } from "./config.ts";
import { obtainCredentials } from "./connect/credentials.ts";
import { decideEncryption } from "./connect/encryption.ts";
import type { KeyValue } from "./connect/key-value.ts";
import { MATRIX_PLATFORM, placeOf, roomConversation } from "./conversation.ts";
import { MatrixSendOnlyEncryptionError } from "./errors.ts";
import { openConnection } from "./matrix-connection.ts";
import { openSendOnlyConnection } from "./matrix-send-only.ts";
import type { MatrixSending } from "./matrix-sending.ts";
import { MATRIX_UPLOAD_LIMIT } from "./media/matrix-media.ts";
import { loadMatrixSdk, loadWasmCrypto } from "./sdk/load-sdk.ts";
import { describeRequestFailure } from "./sdk/request-failure.ts";
import { routeSdkLogs } from "./sdk/sdk-logging.ts";
import { type EncryptThroughLeader, readEncryptionRequest } from "./send/encryption-relay.ts";
import type { EncryptContent } from "./send/message-poster.ts";

export interface MatrixAdapterDeps {
  /** Keeps the sync position and a password login's token across restarts (namespace `matrix`). */
  readonly store?: Store;
  readonly logger?: Logger;
  /**
   * Send-only (a cluster's workers): how to reach the process that syncs, which holds the bot's one
   * encryption device, to encrypt events for encrypted rooms (its `encryptForSendOnly` answers).
   * Without it a send-only process cannot start with `matrix.encryption` on.
   */
  readonly encryptThroughLeader?: EncryptThroughLeader;
}

export class MatrixNotStartedError extends Error {
  constructor(action: string) {
    super(`cannot ${action}: the Matrix adapter is not started`);
    this.name = "MatrixNotStartedError";
  }
}

/** Asked to encrypt for a send-only process while this one does not sync with encryption active. */
export class MatrixNotSyncingEncryptedError extends Error {
  constructor() {
    super(
      "this process does not hold the Matrix encryption device (it does not sync with matrix.encryption on)",
    );
    this.name = "MatrixNotSyncingEncryptedError";
  }
}

/** Matrix rooms as Switchboard conversations, on matrix-bot-sdk. */
export class MatrixAdapter implements Adapter {
  readonly platform = MATRIX_PLATFORM;
  /** Element and other clients take `/word` as their own command (and refuse unknown ones). */
  readonly commandPrefix = "!";
  /** One `/sync` per account: in a cluster, only the elected ingress syncs. */
  readonly exclusiveInbound = true;
  readonly limits: AdapterLimits;
  readonly streaming: AdapterStreaming | undefined;
  /** Files people send (m.image, m.file, m.audio, m.video), from the homeserver's media repository. */
  readonly attachments: AdapterAttachments = {
    open: (attachment, signal) => this.#media("download a file").attachments.open(attachment, signal),
  };
  /** Files the team sends: uploaded, then shown as m.image / m.file… in the thread. */
  readonly files: AdapterFiles = {
    maxUploadBytes: MATRIX_UPLOAD_LIMIT,
    upload: (conversation, file) => this.#media("upload a file").files.upload(conversation, file),
    post: (message) => this.#media("post a file").files.post(message),
  };
  readonly #config: ResolvedMatrixConfig;
  readonly #logger: Logger;
  readonly #kv: KeyValue | undefined;
  readonly #encryptThroughLeader: EncryptThroughLeader | undefined;
  /** The syncing connection after `start`, the sending pieces alone after `startSendOnly`. */
  #connection: (MatrixSending & { close(): Promise<void> }) | undefined;
  /** Set while this process syncs with encryption active (never in a send-only worker). */
  #encryptionCounts: (() => EncryptionCounts | undefined) | undefined;
  /** Set while this process syncs with encryption active: the one device encrypts here. */
  #encrypt: EncryptContent | undefined;
  #approvals: ApprovalDecider | undefined;
  #identities: TeamIdentities | undefined;

  constructor(config: MatrixAdapterConfig, deps: MatrixAdapterDeps = {}) {
    this.#config = matrixAdapterConfigSchema.parse(config);
    this.#logger = deps.logger ?? silentLogger;
    this.#kv = deps.store?.namespace<string>("matrix");
    this.#encryptThroughLeader = deps.encryptThroughLeader;
    this.limits = { maxMessageLength: this.#config.maxMessageLength };
    this.streaming = adapterStreaming(this.#config);
  }

  /**
   * Agents' names: in front of each message (body and formatted body); a team of one agent instead
   * shows it as the bot's display name in each room it speaks in.
   */
  useIdentities(identities: TeamIdentities): void {
    this.#identities = identities;
  }

  /** The text as it shows `identity`: its name in front, unless the room shows it as the sender's name. */
  async #named(
    connection: MatrixSending,
    conversation: ConversationRef,
    text: string,
    identity: AgentIdentity | undefined,
  ): Promise<string> {
    if (!identity) return text;
    if (this.#identities?.singleAgent) {
      const { roomId } = placeOf(conversation);
      if (await connection.displayNames.ensure(roomId, identity.name)) return text;
    }
    return withNamePrefix(text, identity.name);
  }

  /** `access.matrix`: the room, and the sender's homeserver (`@ana:example.org` → `example.org`). */
  accessPlace(message: InboundMessage): { place: string; space?: string } {
    const room = message.conversation.path[0] ?? "";
    const server = message.author.id.slice(message.author.id.indexOf(":") + 1);
    return server === "" || !message.author.id.includes(":")
      ? { place: room }
      : { place: room, space: server };
  }

  /** ✅ / ❌ reactions on prompts; they are decided by core. */
  useApprovals(decider: ApprovalDecider): void {
    this.#approvals = decider;
  }

  /** Uses the login `start` kept in the store, so a check never leaves a new device behind. */
  async check(): Promise<AdapterCheck> {
    const { sdk } = loadMatrixSdk();
    routeSdkLogs(sdk, this.#logger);
    const credentials = await obtainCredentials(sdk, this.#config, this.#kv, this.#logger);
    const settings = this.#config.encryption;
    const encryption = decideEncryption(
      settings.enabled,
      settings.enabled ? await loadWasmCrypto() : undefined,
    );
    this.#logger.info("Matrix credentials work", {
      userId: credentials.userId,
      homeserver: this.#config.homeserverUrl,
      encryption: encryption.active ? "on" : `off (${encryption.reason})`,
    });
    if (!settings.enabled) return { warnings: [] };
    if (!encryption.active || credentials.deviceId === undefined) {
      const reason = encryption.active
        ? "the homeserver does not name the access token's device"
        : encryption.reason;
      return {
        warnings: [
          `matrix.encryption is on, but end-to-end encryption cannot work here (${reason}); encrypted rooms get a notice and are not answered`,
        ],
      };
    }
    if (!this.#kv)
      return {
        warnings: ["matrix.encryption is on without a store: the crypto state is lost at every restart"],
      };
    const { readCryptoStatus, describeCryptoStatus } = await import("./crypto/crypto-status.ts");
    const client = new sdk.MatrixClient(this.#config.homeserverUrl, credentials.accessToken);
    try {
      const status = await readCryptoStatus({
        kv: this.#kv,
        userId: credentials.userId,
        deviceId: credentials.deviceId,
        passphrase: settings.storePassphrase ?? "",
        request: (method, path, query, body) => client.doRequest(method, path, query, body),
      });
      const crypto = describeCryptoStatus(status);
      const { describeKeyBackup } = await import("./crypto/key-backup.ts");
      const { decodeRecoveryKey, newRecoveryKey } = await import("./crypto/recovery-key.ts");
      const backup = await describeKeyBackup(
        (method, path, query, body) => client.doRequest(method, path, query, body),
        settings.recoveryKey === undefined ? undefined : decodeRecoveryKey(settings.recoveryKey),
        newRecoveryKey,
      );
      return {
        notes: [...crypto.notes, ...backup.notes],
        warnings: [...crypto.warnings, ...backup.warnings],
      };
    } catch (error) {
      return {
        warnings: [
          `could not read the end-to-end encryption state of device ${credentials.deviceId} (${describeRequestFailure(error).message})`,
        ],
      };
    }
  }

  async start(sink: InboundSink): Promise<void> {
    if (this.#connection) throw new Error("the Matrix adapter is already started");
    const connection = await openConnection(this.#config, {
      sink,
      logger: this.#logger,
      kv: this.#kv,
      approvals: () => this.#approvals,
    });
    // Set before syncing: the first batch may already be answered while start() is still running.
    this.#connection = connection;
    this.#encryptionCounts = connection.undecryptableCounts;
    this.#encrypt = connection.encrypt;
    await connection.startSyncing();
  }

  /**
   * A worker has no encryption device: with encryption on, it encrypts through the process that
   * syncs (the leading ingress), so posts into encrypted rooms wait while no process syncs.
   */
  checkSendOnly(): SendOnlyCheck {
    if (!this.#config.encryption.enabled) return { problems: [], warnings: [] };
    if (!this.#encryptThroughLeader)
      return { problems: [new MatrixSendOnlyEncryptionError().message], warnings: [] };
    return {
      problems: [],
      warnings: [
        "events for encrypted rooms are encrypted by the ingress that leads Matrix receiving (it holds the bot's one device); while none leads, they are not posted and are retried",
      ],
    };
  }

  /**
   * Delivers without receiving: no `/sync`, no SDK start; another process (role all or ingress)
   * syncs the same account, and finds the approval prompts posted here in the shared store.
   */
  async startSendOnly(): Promise<void> {
    if (this.#connection) throw new Error("the Matrix adapter is already started");
    this.#connection = await openSendOnlyConnection(this.#config, {
      logger: this.#logger,
      kv: this.#kv,
      encryptThroughLeader: this.#encryptThroughLeader,
    });
  }

  /**
   * Encrypts one room event for a send-only process with the bot's device, which only the process
   * that syncs holds (the leading ingress): the `m.room.encrypted` content, which the asking
   * process sends itself.
   */
  async encryptForSendOnly(request: unknown): Promise<object> {
    const encrypt = this.#encrypt;
    if (!encrypt) throw new MatrixNotSyncingEncryptedError();
    const { roomId, type, content } = readEncryptionRequest(request);
    return encrypt(roomId, type, content);
  }

  /** Finishes handing on the batch in progress (so its position is kept), clears typing, stops syncing. */
  async stop(): Promise<void> {
    const connection = this.#connection;
    if (!connection) return;
    await connection.close();
    this.#connection = undefined;
    this.#encryptionCounts = undefined;
    this.#encrypt = undefined;
  }

  /**
   * End-to-end encryption figures for the metrics — decryption failures by reason, events waiting
   * for their keys — while this process syncs with encryption active; undefined otherwise.
   */
  encryptionCounts(): EncryptionCounts | undefined {
    return this.#encryptionCounts?.();
  }

  async post(message: OutboundMessage): Promise<PostedMessage> {
    const connection = this.#connection;
    if (!connection) throw new MatrixNotStartedError("post a message");
    const { approval } = message;
    const text = await this.#named(connection, message.conversation, message.text, message.identity);
    const posted = approval
      ? await connection.poster.post(
          { ...message, text: `${text}\n\n${REACTION_HINT}` },
          ReactionApprovals.fieldsFor(approval, message.conversation, message.text),
        )
      : await connection.poster.post({ ...message, text });
    if (approval) await connection.approvals.prompted(posted, approval, message.text, message.idempotencyKey);
    if (message.replyTo !== undefined)
      await connection.receipts?.markRead(placeOf(message.conversation).roomId, message.replyTo);
    return posted;
  }

  #media(action: string) {
    if (!this.#connection) throw new MatrixNotStartedError(action);
    return this.#connection.media;
  }

  /**
   * A conversation a top-level message started gets the bot's own posts (a schedule's) as new
   * messages in its room; one started in a thread keeps them in the thread.
   */
  placeForPosts(conversation: ConversationRef, startedBy: string | undefined) {
    const { roomId, threadRoot } = placeOf(conversation);
    const room = roomConversation(roomId);
    return {
      post: threadRoot !== undefined && threadRoot === startedBy ? room : conversation,
      channel: room,
    };
  }

  async describePlace(conversation: ConversationRef): Promise<PlaceNames | undefined> {
    const room = await this.#connection?.roomName(placeOf(conversation).roomId);
    return room === undefined ? undefined : { room };
  }

  async edit(posted: PostedMessage, text: string, approval?: ApprovalPrompt): Promise<void> {
    if (!this.#connection) throw new MatrixNotStartedError("edit a message");
    const { poster, approvals } = this.#connection;
    const named = await this.#named(this.#connection, posted.conversation, text, posted.identity);
    if (!approval) return poster.edit(posted, named);
    await poster.edit(
      posted,
      `${named}\n\n${REACTION_HINT}`,
      ReactionApprovals.fieldsFor(approval, posted.conversation, text),
    );
    await approvals.prompted(posted, approval, text);
  }

  /** A prompt decided off its reactions (typed, console): edited to say the outcome. */
  async showDecision(prompt: PostedMessage, text: string, decision: { approved: boolean; by: string }) {
    if (!this.#connection) throw new MatrixNotStartedError("edit a message");
    const named = await this.#named(this.#connection, prompt.conversation, text, prompt.identity);
    await this.#connection.poster.edit(prompt, `${named}\n\n${decisionLine(decision)}`);
  }

  async setTyping(conversation: ConversationRef, active: boolean): Promise<void> {
    if (!this.#connection) throw new MatrixNotStartedError("show typing");
    const { roomId } = placeOf(conversation);
    if (active) await this.#connection.typing.start(roomId);
    else await this.#connection.typing.stop(roomId);
  }
}
