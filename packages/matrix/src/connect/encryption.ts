import type { Logger } from "@switchboard/core/adapter";
import type { ResolvedMatrixConfig } from "../config.ts";
import type { CryptoBackend } from "../crypto/crypto-backend.ts";
import { type CryptoSupport, loadWasmCrypto, type MatrixSdk } from "../sdk/load-sdk.ts";
import type { Credentials } from "./credentials.ts";
import type { KeyValue } from "./key-value.ts";

export type EncryptionState = { readonly active: true } | { readonly active: false; readonly reason: string };

/** Encryption runs only when asked for and the WASM crypto loaded; otherwise the reason is kept for the logs. */
export function decideEncryption(requested: boolean, support: CryptoSupport | undefined): EncryptionState {
  if (!requested) return { active: false, reason: "matrix.encryption is off" };
  if (support === undefined || !support.available)
    return { active: false, reason: support?.reason ?? "the WASM crypto was not loaded" };
  return { active: true };
}

/** An in-process map, for a bot started without a store (tests, one-off runs). */
function memoryKeyValue(): KeyValue {
  const map = new Map<string, string>();
  return {
    get: async (key) => map.get(key),
    set: async (key, value) => map.set(key, value),
    delete: async (key) => map.delete(key),
  };
}

export interface EncryptionSetup {
  readonly state: EncryptionState;
  /** Present when encryption is active. */
  readonly backend: CryptoBackend | undefined;
}

/**
 * Loads the WASM crypto and restores the bot device's crypto state from the store when
 * `matrix.encryption` is on, and logs which it is and why.
 */
export async function setUpEncryption(
  sdk: MatrixSdk,
  settings: ResolvedMatrixConfig["encryption"],
  parts: { readonly kv: KeyValue | undefined; readonly credentials: Credentials; readonly logger: Logger },
): Promise<EncryptionSetup> {
  const { kv, credentials, logger } = parts;
  let state = decideEncryption(settings.enabled, settings.enabled ? await loadWasmCrypto() : undefined);
  if (state.active && credentials.deviceId === undefined) {
    state = {
      active: false,
      reason:
        "the homeserver does not say which device the access token belongs to, and the keys belong to a device",
    };
  }
  if (!state.active || credentials.deviceId === undefined) {
    const log = settings.enabled ? logger.warn : logger.info;
    log("Matrix end-to-end encryption is not active; encrypted rooms are not answered", {
      reason: state.active ? undefined : state.reason,
    });
    return { state, backend: undefined };
  }
  if (!kv) {
    logger.warn(
      "no store given: the Matrix crypto state is kept in memory only, so after a restart the bot cannot read what was encrypted for it before",
    );
  }
  const { openCryptoBackend } = await import("../crypto/crypto-backend.ts");
  const backend = await openCryptoBackend(sdk, {
    kv: kv ?? memoryKeyValue(),
    userId: credentials.userId,
    deviceId: credentials.deviceId,
    passphrase: settings.storePassphrase ?? "",
    trust: settings.trust,
  });
  logger.info("Matrix end-to-end encryption is on", {
    deviceId: credentials.deviceId,
    cryptoState: backend.restored ? "restored from the store" : "new device: created and kept in the store",
    trust: settings.trust,
  });
  return { state, backend };
}
