import type { ICryptoStorageProvider, IStorageProvider, MatrixClient } from "matrix-bot-sdk";
import type { MatrixSdk } from "./load-sdk.ts";

/** Hands one event the SDK extracted from a sync batch to its listeners; resolves when they are done. */
export type SyncEmit = (eventName: string, ...payload: unknown[]) => Promise<void>;

/** The pieces of the SDK's sync machinery our own sync loop drives. */
export interface SyncPrimitives {
  /** One `/sync` request from `since` (an initial sync when null), long-polling up to `waitMs`. */
  fetchSync(since: string | null, waitMs: number): Promise<unknown>;
  /** The SDK's handling of one batch (invites, joins, decryption), awaiting `emit` for every event. */
  dispatchSync(response: unknown, emit: SyncEmit): Promise<void>;
}

export type SwitchboardMatrixClient = MatrixClient & SyncPrimitives;

/**
 * A MatrixClient whose `start()` prepares everything (DM map, joined rooms, crypto, filter) but does
 * not start the SDK's own sync loop: that loop advances the sync token before its listeners finish,
 * so a crash mid-batch would lose events. SyncLoop runs instead.
 */
export function createMatrixClient(
  sdk: MatrixSdk,
  homeserverUrl: string,
  accessToken: string,
  storage: IStorageProvider,
  cryptoStore: ICryptoStorageProvider | null,
): SwitchboardMatrixClient {
  class SyncingMatrixClient extends sdk.MatrixClient implements SyncPrimitives {
    protected override startSyncInternal(): Promise<void> {
      return Promise.resolve();
    }

    fetchSync(since: string | null, waitMs: number): Promise<unknown> {
      // doSync reads the long-poll time from this field when it builds the request.
      const configured = this.syncingTimeout;
      this.syncingTimeout = waitMs;
      // The SDK leaves `since` out when the token is empty.
      const response = this.doSync(since ?? "");
      this.syncingTimeout = configured;
      return response;
    }

    async dispatchSync(response: unknown, emit: SyncEmit): Promise<void> {
      await this.processSync(response, emit);
    }
  }
  return new SyncingMatrixClient(homeserverUrl, accessToken, storage, cryptoStore ?? undefined);
}
