import type { Logger } from "@switchboard/core/adapter";
import type { ResolvedMatrixConfig } from "../config.ts";
import type { CryptoBackend } from "../crypto/crypto-backend.ts";
import type { BackupRequest, KeyBackup } from "../crypto/key-backup.ts";
import { type CryptoSupport, loadWasmCrypto, type MatrixSdk } from "../sdk/load-sdk.ts";
import { describeRequestFailure } from "../sdk/request-failure.ts";
import type { Credentials } from "./credentials.ts";
import { type KeyValue, memoryKeyValue } from "./key-value.ts";

export type EncryptionState = { readonly active: true } | { readonly active: false; readonly reason: string };

/** Encryption runs only when asked for and the WASM crypto loaded; otherwise the reason is kept for the logs. */
export function decideEncryption(requested: boolean, support: CryptoSupport | undefined): EncryptionState {
  if (!requested) return { active: false, reason: "matrix.encryption is off" };
  if (support === undefined || !support.available)
    return { active: false, reason: support?.reason ?? "the WASM crypto was not loaded" };
  return { active: true };
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

/**
 * Turns server-side key backup on when `matrix.encryption.recoveryKey` is set (once the SDK's
 * crypto client has made the machine). Trouble with the homeserver's backup is a warning, never a
 * failed start: the bot answers without it.
 */
export async function startKeyBackup(
  settings: ResolvedMatrixConfig["encryption"],
  backend: CryptoBackend | undefined,
  parts: {
    readonly request: BackupRequest;
    readonly credentials: Credentials;
    readonly logger: Logger;
  },
): Promise<KeyBackup | undefined> {
  const { recoveryKey } = settings;
  const machine = backend?.machine();
  if (recoveryKey === undefined || !backend || !machine) return undefined;
  const [{ KeyBackup }, { decodeRecoveryKey }] = await Promise.all([
    import("../crypto/key-backup.ts"),
    import("../crypto/recovery-key.ts"),
  ]);
  const { credentials, request, logger } = parts;
  try {
    return await KeyBackup.open({
      machine,
      request,
      recoveryKey: decodeRecoveryKey(recoveryKey),
      userId: credentials.userId,
      deviceId: backend.deviceId,
      logger,
    });
  } catch (error) {
    logger.warn("could not turn the Matrix key backup on; room keys are not backed up until the next start", {
      error: describeRequestFailure(error).message,
    });
    return undefined;
  }
}
