import type { Logger } from "@switchboard/core/adapter";
import type { ResolvedMatrixConfig } from "./config.ts";
import { obtainCredentials } from "./connect/credentials.ts";
import { decideEncryption } from "./connect/encryption.ts";
import type { KeyValue } from "./connect/key-value.ts";
import { MatrixEncryptionRelayError, MatrixSendOnlyEncryptionError } from "./errors.ts";
import { buildSending, clearTyping, type MatrixSending } from "./matrix-sending.ts";
import { RoomDirectory } from "./receive/room-directory.ts";
import { loadMatrixSdk } from "./sdk/load-sdk.ts";
import { describeRequestFailure } from "./sdk/request-failure.ts";
import { routeSdkLogs } from "./sdk/sdk-logging.ts";
import { type EncryptThroughLeader, isMegolmContent } from "./send/encryption-relay.ts";
import type { EncryptContent } from "./send/message-poster.ts";

/**
 * A worker sees no room timeline, so it cannot watch a room turn encryption on: "not encrypted" is
 * re-read this often, and plaintext never goes into a room known to be encrypted for longer.
 */
const RECHECK_UNENCRYPTED_MS = 60_000;

export interface MatrixSendOnlyConnection extends MatrixSending {
  close(): Promise<void>;
}

/**
 * A worker's connection: what delivers, built from the configured or stored login, with no `/sync`
 * request and no SDK start — the process that syncs receives. The SDK client keeps its own state
 * in memory only, so nothing here can move the shared sync position; approval prompts are recorded
 * in the shared store, where the syncing process looks them up when a reaction arrives. With
 * encryption on, events for encrypted rooms are encrypted by the process that syncs (it holds the
 * bot's one device) and sent from here.
 */
export async function openSendOnlyConnection(
  config: ResolvedMatrixConfig,
  deps: {
    readonly logger: Logger;
    readonly kv: KeyValue | undefined;
    readonly encryptThroughLeader: EncryptThroughLeader | undefined;
  },
): Promise<MatrixSendOnlyConnection> {
  const { logger, kv, encryptThroughLeader } = deps;
  if (config.encryption.enabled && !encryptThroughLeader) throw new MatrixSendOnlyEncryptionError();
  const { sdk } = loadMatrixSdk();
  routeSdkLogs(sdk, logger);
  const { userId, accessToken } = await obtainCredentials(sdk, config, kv, logger);
  const client = new sdk.MatrixClient(config.homeserverUrl, accessToken, new sdk.MemoryStorageProvider());
  const rooms = new RoomDirectory(client, logger, config.directRooms, {
    recheckUnencryptedMs: RECHECK_UNENCRYPTED_MS,
  });
  const sending = buildSending(config, {
    client,
    rooms,
    userId,
    ...(encryptThroughLeader && config.encryption.enabled
      ? { encryption: { active: true } as const, encrypt: relayedEncryption(encryptThroughLeader) }
      : { encryption: decideEncryption(false, undefined) }),
    kv,
    // Reactions reach the process that syncs; none is ever decided here.
    decider: () => undefined,
    logger,
  });
  logger.info("Matrix send-only (client-server API, no sync)", {
    userId,
    homeserver: config.homeserverUrl,
    encryption: config.encryption.enabled ? "through the process that syncs" : "off",
  });
  return {
    ...sending,
    async close() {
      await clearTyping(sending, logger);
      logger.info("Matrix send-only stopped", { userId });
    },
  };
}

/** Encrypts through the process that holds the device; anything but Megolm ciphertext back is refused. */
function relayedEncryption(encryptThroughLeader: EncryptThroughLeader): EncryptContent {
  return async (roomId, type, content) => {
    let answer: unknown;
    try {
      answer = await encryptThroughLeader({ roomId, type, content });
    } catch (error) {
      throw new MatrixEncryptionRelayError(roomId, describeRequestFailure(error).message, { cause: error });
    }
    if (!isMegolmContent(answer))
      throw new MatrixEncryptionRelayError(roomId, "the answer is not Megolm ciphertext");
    return answer;
  };
}
