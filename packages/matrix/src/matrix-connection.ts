import type { InboundSink, Logger } from "@switchboard/core";
import type { ResolvedMatrixConfig } from "./config.ts";
import { obtainCredentials } from "./connect/credentials.ts";
import { setUpEncryption } from "./connect/encryption.ts";
import type { KeyValue } from "./connect/key-value.ts";
import { StoreStorageProvider } from "./connect/store-storage-provider.ts";
import { EventRouter } from "./receive/event-router.ts";
import { RoomDirectory } from "./receive/room-directory.ts";
import { matrixRoomNames } from "./receive/room-names.ts";
import { loadMatrixSdk } from "./sdk/load-sdk.ts";
import { describeRequestFailure } from "./sdk/request-failure.ts";
import { routeSdkLogs } from "./sdk/sdk-logging.ts";
import { createMatrixClient } from "./sdk/syncing-client.ts";
import { EventSender } from "./send/event-sender.ts";
import { MessagePoster } from "./send/message-poster.ts";
import { ReadReceipts } from "./send/read-receipts.ts";
import { TypingIndicator } from "./send/typing.ts";
import { readMessagesPage } from "./sync/gap-filler.ts";
import { SyncLoop, type SyncTokenStore } from "./sync/sync-loop.ts";

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

export interface MatrixConnection {
  readonly poster: MessagePoster;
  readonly typing: TypingIndicator;
  /** Absent when `readReceipts` is off. */
  readonly receipts: ReadReceipts | undefined;
  /** A room's name, cached (for the operator console). */
  roomName(roomId: string): Promise<string | undefined>;
  /** Starts the sync loop; resolves once the first batch is handed on (answers to it need poster ready). */
  startSyncing(): Promise<void>;
  close(): Promise<void>;
}

interface ConnectionDeps {
  readonly sink: InboundSink;
  readonly logger: Logger;
  readonly kv: KeyValue | undefined;
}

/** Logs in and prepares the SDK client and our sync loop; the pieces post() and setTyping() use. */
export async function openConnection(
  config: ResolvedMatrixConfig,
  deps: ConnectionDeps,
): Promise<MatrixConnection> {
  const { logger, kv, sink } = deps;
  const loaded = loadMatrixSdk();
  const { sdk } = loaded;
  routeSdkLogs(sdk, logger);
  if (!kv) {
    logger.warn(
      "no store given: the Matrix sync position is not kept, so messages sent while the bot is down are never answered",
    );
  }
  const credentials = await obtainCredentials(sdk, config, kv, logger);
  const { userId } = credentials;
  const encryption = setUpEncryption(
    loaded,
    { requested: config.encryption, dataDir: config.dataDir, userId },
    logger,
  );
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
    encryption.cryptoStore,
  );

  // The SDK forgets the sync token whenever it creates a new filter (first start, or SYNC_FILTER
  // changed). A token stays valid under any filter, and forgetting it would leave the downtime
  // unanswered, so it is put back.
  const tokenBefore = await tokens.getSyncToken();
  await client.start(SYNC_FILTER);
  if (tokenBefore !== null && (await tokens.getSyncToken()) === null) await tokens.setSyncToken(tokenBefore);

  const displayName = config.displayName ?? (await profileName(client, userId, logger));
  const joinedRooms = await client.getJoinedRooms();
  const rooms = new RoomDirectory(client, logger, config.directRooms);
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
  const typing = new TypingIndicator(
    async (roomId, active, timeoutMs) => {
      await client.setTyping(roomId, active, timeoutMs);
    },
    (error) =>
      logger.warn("renewing the Matrix typing indicator failed", {
        error: describeRequestFailure(error).message,
      }),
  );
  const poster = new MessagePoster({
    sender: new EventSender({
      request: (method, path, query, body) => client.doRequest(method, path, query, body),
      logger,
    }),
    rooms,
    replyMode: config.replyMode,
    msgtype: config.msgtype,
    encryption: encryption.state,
    ...(encryption.state.active
      ? { encrypt: (roomId, type, content) => client.crypto.encryptRoomEvent(roomId, type, content) }
      : {}),
  });

  // Unthreaded: marks the answered message and everything before it read, in every thread.
  const receipts = config.readReceipts
    ? new ReadReceipts(
        async (roomId, eventId) => {
          await client.doRequest(
            "POST",
            `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/receipt/m.read/${encodeURIComponent(eventId)}`,
            null,
            {},
          );
        },
        (error, roomId, eventId) =>
          logger.warn("could not send a Matrix read receipt", {
            roomId,
            eventId,
            error: describeRequestFailure(error).message,
          }),
      )
    : undefined;

  const roomName = matrixRoomNames(
    (roomId, type, stateKey) => client.getRoomStateEvent(roomId, type, stateKey),
    logger,
  );

  return {
    poster,
    typing,
    receipts,
    roomName,
    async startSyncing() {
      await loop.start();
      logger.info("Matrix connected", {
        userId,
        displayName,
        rooms: joinedRooms.length,
        replyMode: config.replyMode,
        encryption: encryption.state.active,
      });
    },
    async close() {
      await loop.stop();
      await typing.stopAll().catch((error: unknown) =>
        logger.warn("could not clear the Matrix typing indicator on shutdown", {
          error: describeRequestFailure(error).message,
        }),
      );
      client.stop();
      logger.info("Matrix adapter stopped", { userId });
    },
  };
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
