import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Logger } from "@switchboard/core";
import type { ICryptoStorageProvider, RustSdkCryptoStoreType } from "matrix-bot-sdk";
import type { CryptoSupport, LoadedSdk } from "../sdk/load-sdk.ts";

export type EncryptionState = { readonly active: true } | { readonly active: false; readonly reason: string };

/** Encryption runs only when asked for and the native binding loaded; otherwise the reason is kept for the logs. */
export function decideEncryption(requested: boolean, support: CryptoSupport): EncryptionState {
  if (requested && support.available) return { active: true };
  if (requested && !support.available) return { active: false, reason: support.reason };
  const binding = support.available ? "" : `; besides, ${support.reason}`;
  return { active: false, reason: `matrix.encryption is off${binding}` };
}

/** `@bot:example.org` → `bot_example.org`: one crypto store per account, safe as a directory name. */
function directoryNameFor(userId: string): string {
  return userId.replace(/^@/, "").replace(/[^A-Za-z0-9._-]/g, "_");
}

/**
 * The crypto store for the SDK when encryption is active (the Rust store under
 * `<dataDir>/matrix-crypto/<account>/`), and a start-up log line saying which it is and why.
 */
export function setUpEncryption(
  loaded: LoadedSdk,
  options: { readonly requested: boolean; readonly dataDir: string; readonly userId: string },
  logger: Logger,
): { readonly state: EncryptionState; readonly cryptoStore: ICryptoStorageProvider | null } {
  const state = decideEncryption(options.requested, loaded.crypto);
  if (!state.active) {
    const log = options.requested ? logger.warn : logger.info;
    log("Matrix end-to-end encryption is unavailable; encrypted rooms are logged and skipped", {
      reason: state.reason,
    });
    return { state, cryptoStore: null };
  }
  const path = resolve(options.dataDir, "matrix-crypto", directoryNameFor(options.userId));
  mkdirSync(path, { recursive: true });
  // StoreType is a const enum in the binding's types, absent at run time: Sqlite is 0.
  const sqlite = 0 as RustSdkCryptoStoreType;
  const cryptoStore = new loaded.sdk.RustSdkCryptoStorageProvider(path, sqlite);
  logger.info("Matrix end-to-end encryption is on", { cryptoStore: path });
  return { state, cryptoStore };
}
