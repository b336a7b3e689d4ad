/**
 * Every place this package reaches into matrix-bot-sdk internals, in one file. Written against
 * matrix-bot-sdk 0.8.0, pinned to that exact version in package.json; library-patches.test.ts
 * fails when one of these internals changes shape, so an upgrade that breaks a patch fails a
 * test, not a deployment.
 *
 * - Our own sync loop: MatrixClient's protected `startSyncInternal` is overridden (the SDK's loop
 *   never starts) and its protected `doSync`, `processSync` and `syncingTimeout` are driven here.
 * - Two modules the SDK requires are replaced in its require cache before it loads (see
 *   sdk/load-sdk.ts): its native crypto binding, by crypto/olm-binding.ts — the eight members
 *   its CryptoClient and RustEngine use, with crypto/wasm-olm-machine.ts as the OlmMachine — and
 *   the `request` package, by a stand-in that throws.
 * Those two crypto files are implementations rather than patches and stay in crypto/; the test
 * checks them against the members the SDK's own code uses.
 */
import Module from "node:module";
import type * as MatrixSdkModule from "matrix-bot-sdk";
import type { ICryptoStorageProvider, IStorageProvider, MatrixClient } from "matrix-bot-sdk";

type MatrixSdk = typeof MatrixSdkModule;

/** Puts `exports` in `require`'s cache under `path`, so the SDK's `require` of it gets ours. */
export function replaceSdkDependency(require: NodeJS.Require, path: string, exports: unknown): void {
  const standIn = new Module(path);
  standIn.filename = path;
  standIn.loaded = true;
  standIn.exports = exports;
  require.cache[path] = standIn;
}

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
