import type { ApprovalDecider, EncryptionCounts, InboundSink, Logger } from "@switchboard/core/adapter";
import type { CryptoClient } from "matrix-bot-sdk";
import type { ResolvedMatrixConfig } from "./config.ts";
import { obtainCredentials } from "./connect/credentials.ts";
import { setUpEncryption, startKeyBackup } from "./connect/encryption.ts";
import { type KeyValue, memoryKeyValue } from "./connect/key-value.ts";
import { StoreStorageProvider } from "./connect/store-storage-provider.ts";
import { createMatrixClient } from "./library-patches.ts";
import { buildSending, clearTyping, type MatrixSending } from "./matrix-sending.ts";
import { EventRouter } from "./receive/event-router.ts";
import { asEvent } from "./receive/matrix-event.ts";
import { RoomDirectory } from "./receive/room-directory.ts";
import { loadMatrixSdk } from "./sdk/load-sdk.ts";
import { describeRequestFailure } from "./sdk/request-failure.ts";
import { routeSdkLogs } from "./sdk/sdk-logging.ts";
import type { EncryptContent } from "./send/message-poster.ts";
import { readMessagesPage } from "./sync/gap-filler.ts";
import { SyncLoop, type SyncTokenStore } from "./sync/sync-loop.ts";
import { resendNotice } from "./undecryptable/resend-notice.ts";
import { UndecryptableEvents } from "./undecryptable/undecryptable-events.ts";
import { WaitingEvents } from "./undecryptable/waiting-events.ts";

/**
 * What the bot asks `/sync` for. Changing it makes the SDK drop the stored sync token (see
 * openConnection), so change it with care.
 */
const SYNC_FILTER = {
  presence: { types: [] },
  room: { ephemeral: { types: [] }, state: { lazy_load_members: true }, timeline: { limit: 50 } },
};

/** After a longer outage than this many events per room, the oldest are not answered (and a warning says so). */
const MAX_GAP_EVENTS = 1_000;

/** Encrypted events kept waiting for their keys at most; past it the oldest is dropped (and logged). */
const MAX_WAITING_EVENTS = 200;

/** The syncing connection: receives through `/sync`, and delivers like a send-only one. */
export interface MatrixConnection extends MatrixSending {
  /** Starts the sync loop; resolves once the first batch is handed on (answers to it need poster ready). */
  startSyncing(): Promise<void>;
  /** Encrypts one event with the bot's device (for send-only processes too); undefined when encryption is not active. */
  readonly encrypt: EncryptContent | undefined;
  /** Decryption failures and events waiting for keys; undefined when encryption is not active. */
  undecryptableCounts(): EncryptionCounts | undefined;
  close(): Promise<void>;
}

interface ConnectionDeps {
  readonly sink: InboundSink;
  readonly logger: Logger;
  readonly kv: KeyValue | undefined;
  /** Decides ✅ / ❌ reactions on approval prompts (set once the engine exists). */
  readonly approvals: () => ApprovalDecider | undefined;
}

/** Logs in and prepares the SDK client and our sync loop, and the pieces that deliver. */
export async function openConnection(
  config: ResolvedMatrixConfig,
  deps: ConnectionDeps,
): Promise<MatrixConnection> {
  const { logger, kv, sink } = deps;
  const { sdk } = loadMatrixSdk();
  routeSdkLogs(sdk, logger);
  if (!kv) {
    logger.warn(
      "no store given: the Matrix sync position is not kept, so messages sent while the bot is down are never answered",
    );
  }
  const credentials = await obtainCredentials(sdk, config, kv, logger);
  const { userId } = credentials;
  const encryption = await setUpEncryption(sdk, config.encryption, { kv, credentials, logger });
  const storage = kv ? new StoreStorageProvider(kv, userId) : new sdk.MemoryStorageProvider();
  const tokens: SyncTokenStore = {
    getSyncToken: async () => (await storage.getSyncToken()) ?? null,
    setSyncToken: async (token) => {
      await storage.setSyncToken(token);
    },
  };
  const client = createMatrixClient(
    sdk,
    config.homeserverUrl,
    credentials.accessToken,
    storage,
    encryption.backend?.cryptoStore ?? null,
  );

  // The SDK forgets the sync token whenever it creates a new filter (first start, or SYNC_FILTER
  // changed). A token stays valid under any filter, and forgetting it would leave the downtime
  // unanswered, so it is put back.
  const tokenBefore = await tokens.getSyncToken();
  if (client.crypto) guardCryptoListeners(client.crypto, logger);
  await client.start(SYNC_FILTER);
  if (tokenBefore !== null && (await tokens.getSyncToken()) === null) await tokens.setSyncToken(tokenBefore);

  const displayName = config.displayName ?? (await profileName(client, userId, logger));
  const joinedRooms = await client.getJoinedRooms();
  const rooms = new RoomDirectory(client, logger, config.directRooms);
  const encrypt: EncryptContent | undefined = encryption.state.active
    ? (roomId, type, content) => client.crypto.encryptRoomEvent(roomId, type, content)
    : undefined;
  const sending = buildSending(config, {
    client,
    rooms,
    userId,
    encryption: encryption.state,
    ...(encrypt ? { encrypt } : {}),
    kv,
    decider: deps.approvals,
    logger,
  });
  const undecryptable: UndecryptableEvents | undefined = encryption.backend
    ? new UndecryptableEvents({
        waiting: new WaitingEvents({
          kv: kv ?? memoryKeyValue(),
          scope: userId,
          maxEvents: MAX_WAITING_EVENTS,
        }),
        noticeAfterMs: config.undecryptableNoticeSeconds * 1000,
        verifiedOnly: config.encryption.trust === "verified-only",
        decrypt: async (roomId, raw) => {
          const decrypted = await client.crypto.decryptRoomEvent(new sdk.EncryptedRoomEvent(raw), roomId);
          const event = asEvent(decrypted.raw);
          if (!event) throw new Error(`decrypted Matrix event in ${roomId} has no event id, type or sender`);
          return event;
        },
        deliver: (roomId, event): Promise<void> => router.handOnDecrypted(roomId, event),
        postNotice: async (entry) => {
          // The event cannot be fetched to learn its thread (it cannot be read): placed from what was kept.
          rooms.rememberThread(entry.eventId, entry.threadRoot);
          await sending.poster.post(resendNotice(entry, await rooms.isDirect(entry.roomId)));
        },
        logger,
      })
    : undefined;
  const router = new EventRouter({
    client,
    bot: displayName === undefined ? { userId } : { userId, displayName },
    rooms,
    invites: {
      autoJoin: config.autoJoin,
      inviters: config.inviters,
      inviteServers: config.inviteServers,
      botUserId: userId,
    },
    encryption: encryption.state,
    encryptedRooms: config.encryptedRooms,
    sink,
    logger,
    onReaction: (roomId, event) => sending.approvals.onReaction(roomId, event),
    ...(undecryptable ? { undecryptable } : {}),
  });
  const backup = await startKeyBackup(config.encryption, encryption.backend, {
    request: (method, path, query, body) => client.doRequest(method, path, query, body),
    credentials,
    logger,
  });
  // Registered before the first sync: a key arriving in it finds its waiting events, and is backed up.
  encryption.backend?.machine()?.onRoomKeys(async (keys) => {
    await undecryptable?.keysArrived(keys);
    void backup?.upload();
  });
  const loop = new SyncLoop({
    client,
    tokens,
    handler: router,
    botUserId: userId,
    joinedRooms,
    maxGapEvents: MAX_GAP_EVENTS,
    syncTimeoutMs: config.syncTimeoutMs,
    logger,
    fetchMessages: async (roomId, from, to) =>
      readMessagesPage(
        await client.doRequest("GET", `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/messages`, {
          from,
          to,
          dir: "b",
          limit: 100,
        }),
      ),
  });

  return {
    ...sending,
    async startSyncing() {
      // A bot rebuilt from nothing (a new device) reads what was written before: its keys come back.
      if (backup && encryption.backend?.restored === false) {
        await backup.restore().catch((error: unknown) =>
          logger.warn(
            "could not restore room keys from the Matrix key backup; what was written before stays unreadable",
            {
              error: describeRequestFailure(error).message,
            },
          ),
        );
      }
      void backup?.upload();
      await undecryptable?.start();
      await loop.start();
      logger.info("Matrix connected", {
        userId,
        displayName,
        rooms: joinedRooms.length,
        replyMode: config.replyMode,
        encryption: encryption.state.active,
      });
    },
    encrypt,
    undecryptableCounts: () => undecryptable?.counts(),
    async close() {
      await loop.stop();
      await undecryptable?.stop();
      await backup?.upload();
      await clearTyping(sending, logger);
      client.stop();
      await encryption.backend?.close();
      logger.info("Matrix adapter stopped", { userId });
    },
  };
}

/**
 * matrix-bot-sdk calls its crypto client's room-event and join handlers from event listeners
 * without awaiting them, so a failed homeserver request in one (reading a room's members) would be
 * an unhandled rejection, which ends the process. They are wrapped to log instead; the next event
 * in the room tracks its members again.
 */
function guardCryptoListeners(crypto: CryptoClient, logger: Logger): void {
  const onRoomEvent = crypto.onRoomEvent.bind(crypto);
  const onRoomJoin = crypto.onRoomJoin.bind(crypto);
  const log = (roomId: string) => (error: unknown) =>
    logger.warn("Matrix crypto could not update a room's tracked devices", {
      roomId,
      error: describeRequestFailure(error).message,
    });
  crypto.onRoomEvent = (roomId, event) => onRoomEvent(roomId, event).catch(log(roomId));
  crypto.onRoomJoin = (roomId) => onRoomJoin(roomId).catch(log(roomId));
}

async function profileName(
  client: { getUserProfile(userId: string): Promise<{ displayname?: unknown }> },
  userId: string,
  logger: Logger,
): Promise<string | undefined> {
  try {
    const profile = await client.getUserProfile(userId);
    return typeof profile.displayname === "string" && profile.displayname !== ""
      ? profile.displayname
      : undefined;
  } catch (error) {
    logger.warn("could not read the bot's Matrix display name; only its MXID and pills count as mentions", {
      userId,
      error: describeRequestFailure(error).message,
    });
    return undefined;
  }
}
