import type { Logger } from "@switchboard/core/adapter";
import type { ResolvedMatrixConfig } from "./config.ts";
import { obtainCredentials } from "./connect/credentials.ts";
import { decideEncryption } from "./connect/encryption.ts";
import type { KeyValue } from "./connect/key-value.ts";
import { MatrixSendOnlyEncryptionError } from "./errors.ts";
import { buildSending, clearTyping, type MatrixSending } from "./matrix-sending.ts";
import { RoomDirectory } from "./receive/room-directory.ts";
import { loadMatrixSdk } from "./sdk/load-sdk.ts";
import { routeSdkLogs } from "./sdk/sdk-logging.ts";

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
 * in the shared store, where the syncing process looks them up when a reaction arrives.
 */
export async function openSendOnlyConnection(
  config: ResolvedMatrixConfig,
  deps: { readonly logger: Logger; readonly kv: KeyValue | undefined },
): Promise<MatrixSendOnlyConnection> {
  const { logger, kv } = deps;
  if (config.encryption.enabled) throw new MatrixSendOnlyEncryptionError();
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
    encryption: decideEncryption(false, undefined),
    kv,
    // Reactions reach the process that syncs; none is ever decided here.
    decider: () => undefined,
    logger,
  });
  logger.info("Matrix send-only (client-server API, no sync)", { userId, homeserver: config.homeserverUrl });
  return {
    ...sending,
    async close() {
      await clearTyping(sending, logger);
      logger.info("Matrix send-only stopped", { userId });
    },
  };
}
