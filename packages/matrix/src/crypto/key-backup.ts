import * as wasm from "@matrix-org/matrix-sdk-crypto-wasm";
import type { Logger } from "@switchboard/core/adapter";
import { isRecord } from "../receive/matrix-event.ts";
import { describeRequestFailure } from "../sdk/request-failure.ts";
import type { WasmOlmMachine } from "./wasm-olm-machine.ts";

/** The homeserver requests key backup makes (the SDK client's `doRequest`, which adds the token). */
export type BackupRequest = (
  method: "GET" | "POST" | "PUT",
  path: string,
  query: Record<string, string> | null,
  body?: unknown,
) => Promise<unknown>;

const ALGORITHM = "m.megolm_backup.v1.curve25519-aes-sha2";
const VERSION_PATH = "/_matrix/client/v3/room_keys/version";
const KEYS_PATH = "/_matrix/client/v3/room_keys/keys";

/** The backup the homeserver holds for the account now (`GET /room_keys/version`), if any. */
export interface BackupVersion {
  readonly version: string;
  /** The public key room keys are encrypted to; only the recovery key's private half reads them. */
  readonly publicKey: string | undefined;
  /** Room keys in it. */
  readonly count: number;
}

export async function readBackupVersion(request: BackupRequest): Promise<BackupVersion | undefined> {
  let answer: unknown;
  try {
    answer = await request("GET", VERSION_PATH, null);
  } catch (error) {
    if (describeRequestFailure(error).errcode === "M_NOT_FOUND") return undefined;
    throw error;
  }
  if (!isRecord(answer) || typeof answer.version !== "string")
    throw new Error("the homeserver's key backup answer has no version");
  const publicKey = isRecord(answer.auth_data) ? answer.auth_data.public_key : undefined;
  return {
    version: answer.version,
    publicKey: typeof publicKey === "string" ? publicKey : undefined,
    count: typeof answer.count === "number" ? answer.count : 0,
  };
}

/** The backup's decryption key from the recovery key's 32 bytes, and its public half. */
export function backupKeyOf(recoveryKey: Uint8Array): { key: wasm.BackupDecryptionKey; publicKey: string } {
  const key = wasm.BackupDecryptionKey.fromBase64(
    Buffer.from(recoveryKey).toString("base64").replace(/=+$/, ""),
  );
  return { key, publicKey: key.megolmV1PublicKey.publicKeyBase64 };
}

export interface KeyBackupOptions {
  readonly machine: WasmOlmMachine;
  readonly request: BackupRequest;
  /** `matrix.encryption.recoveryKey`, decoded. */
  readonly recoveryKey: Uint8Array;
  readonly userId: string;
  readonly deviceId: string;
  readonly logger: Logger;
}

/**
 * Server-side key backup (the spec's `m.megolm_backup.v1`): every room key the bot's device holds —
 * those others shared with it and those of its own messages — is uploaded, encrypted to the public
 * half of the recovery key, as soon as the crypto stores it. A bot rebuilt from nothing (a new
 * device, an empty store) with the same recovery key downloads them again, so it can still read
 * what was written before. The homeserver's backup is the one the recovery key opens; the bot makes
 * one when there is none, and never replaces one made with another key.
 */
export class KeyBackup {
  readonly version: string;
  readonly #options: KeyBackupOptions;
  readonly #key: wasm.BackupDecryptionKey;
  #queue: Promise<void> = Promise.resolve();

  private constructor(options: KeyBackupOptions, key: wasm.BackupDecryptionKey, version: string) {
    this.#options = options;
    this.#key = key;
    this.version = version;
  }

  /**
   * Finds the homeserver's backup (or makes one) and turns backup on in the crypto. Undefined, with a
   * warning, when the homeserver's backup was made with another key: its keys cannot be read, and
   * replacing it would cut off whoever made it.
   */
  static async open(options: KeyBackupOptions): Promise<KeyBackup | undefined> {
    const { machine, request, logger } = options;
    const { key, publicKey } = backupKeyOf(options.recoveryKey);
    const current = await readBackupVersion(request);
    let version: string;
    if (current === undefined) {
      version = await createBackup(options, publicKey);
      logger.info("made a Matrix key backup on the homeserver for the recovery key", { version });
    } else if (current.publicKey !== publicKey) {
      logger.warn(
        "the homeserver's Matrix key backup was made with another key than matrix.encryption.recoveryKey; room keys are not backed up",
        { version: current.version },
      );
      return undefined;
    } else {
      version = current.version;
    }
    await machine.enableKeyBackup(key, version);
    return new KeyBackup(options, key, version);
  }

  /**
   * Downloads every room key in the backup and imports those the device lacks (a rebuilt bot);
   * resolves with how many were imported. Keys that do not decrypt are counted out, never fatal.
   */
  async restore(): Promise<number> {
    const { request, machine, logger } = this.#options;
    const answer = await request("GET", KEYS_PATH, { version: this.version });
    const rooms = isRecord(answer) && isRecord(answer.rooms) ? answer.rooms : {};
    const sessions = new Map<string, Map<string, unknown>>();
    let unreadable = 0;
    for (const [roomId, room] of Object.entries(rooms)) {
      const inRoom = new Map<string, unknown>();
      const backedUp = isRecord(room) && isRecord(room.sessions) ? room.sessions : {};
      for (const [sessionId, entry] of Object.entries(backedUp)) {
        const data = isRecord(entry) && isRecord(entry.session_data) ? entry.session_data : undefined;
        const { ephemeral, mac, ciphertext } = data ?? {};
        if (typeof ephemeral !== "string" || typeof mac !== "string" || typeof ciphertext !== "string") {
          unreadable++;
          continue;
        }
        try {
          const session = JSON.parse(this.#key.decryptV1(ephemeral, mac, ciphertext)) as Record<
            string,
            unknown
          >;
          inRoom.set(sessionId, { ...session, session_id: sessionId, room_id: roomId });
        } catch {
          // A session encrypted to another key, or damaged: counted and reported below.
          unreadable++;
        }
      }
      if (inRoom.size > 0) sessions.set(roomId, inRoom);
    }
    const imported = await machine.importBackedUpRoomKeys(sessions, this.version);
    logger.info("restored room keys from the Matrix key backup", {
      version: this.version,
      imported,
      ...(unreadable > 0 ? { unreadable } : {}),
    });
    return imported;
  }

  /**
   * Uploads the room keys not backed up yet, in the background and one upload at a time. A failed
   * upload is logged; the keys stay marked "not backed up" and go with the next one.
   */
  upload(): Promise<void> {
    this.#queue = this.#queue.then(() =>
      this.#uploadPending().catch((error: unknown) =>
        this.#options.logger.warn("could not back up Matrix room keys; they go with the next upload", {
          version: this.version,
          error: describeRequestFailure(error).message,
        }),
      ),
    );
    return this.#queue;
  }

  async #uploadPending(): Promise<void> {
    const { machine, request } = this.#options;
    for (let next = await machine.nextKeyBackup(); next; next = await machine.nextKeyBackup()) {
      const answer = await request("PUT", KEYS_PATH, { version: next.version }, JSON.parse(next.body));
      await machine.markKeyBackupSent(next.id, JSON.stringify(answer));
    }
  }
}

/** Makes a backup version for `publicKey`, its description signed by the bot's device as clients expect. */
async function createBackup(options: KeyBackupOptions, publicKey: string): Promise<string> {
  const { machine, request, userId, deviceId } = options;
  // Canonical JSON of `{ public_key }`: one key, so the plain serialization is the canonical one.
  const signed = await machine.sign(JSON.stringify({ public_key: publicKey }));
  const signatures: Record<string, string> = {};
  for (const [keyId, { signature }] of Object.entries(signed.get(new wasm.UserId(userId))))
    signatures[keyId] = signature.toBase64();
  const answer = await request("POST", VERSION_PATH, null, {
    algorithm: ALGORITHM,
    auth_data: { public_key: publicKey, signatures: { [userId]: signatures } },
  });
  if (!isRecord(answer) || typeof answer.version !== "string")
    throw new Error(`the homeserver made no key backup for device ${deviceId} (no version in its answer)`);
  return answer.version;
}

/** The doctor's lines about key backup: what the homeserver holds, and whether the recovery key opens it. */
export async function describeKeyBackup(
  request: BackupRequest,
  recoveryKey: Uint8Array | undefined,
  newKey: () => string,
): Promise<{ notes: string[]; warnings: string[] }> {
  const current = await readBackupVersion(request);
  if (recoveryKey === undefined) {
    return {
      notes: [
        `Matrix key backup: off${current ? ` (the homeserver holds backup version ${current.version}, made elsewhere)` : ""}; a bot rebuilt without its store cannot read what was written before. To turn it on, set matrix.encryption.recoveryKey, e.g. to this new one: ${newKey()}`,
      ],
      warnings: [],
    };
  }
  if (current === undefined)
    return {
      notes: ["Matrix key backup: none on the homeserver yet (start makes one for the recovery key)"],
      warnings: [],
    };
  if (current.publicKey !== backupKeyOf(recoveryKey).publicKey) {
    return {
      notes: [],
      warnings: [
        `Matrix key backup version ${current.version} on the homeserver was made with another key than matrix.encryption.recoveryKey: room keys are not backed up. Use the key it was made with, or delete that backup (Element: Settings → Security) so the bot makes its own`,
      ],
    };
  }
  return {
    notes: [
      `Matrix key backup version ${current.version}: the recovery key opens it; it holds ${current.count} room keys`,
    ],
    warnings: [],
  };
}
