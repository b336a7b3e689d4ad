import * as wasm from "@matrix-org/matrix-sdk-crypto-wasm";
import type { DurableIndexedDb } from "./indexeddb/durable-indexeddb.ts";

/**
 * Who the bot trusts. `allow-unverified`: every device of a room's members gets the room keys, and
 * messages from any device are read. `verified-only`: only devices their owner has cross-signed
 * get keys, and only messages from such devices are read.
 */
export type TrustPolicy = "allow-unverified" | "verified-only";

/** A request matrix-bot-sdk's RustEngine sends: `type` as in the native binding (same numbers as the WASM's). */
export interface EngineRequest {
  readonly id: string;
  readonly type: wasm.RequestType;
  /** JSON. For to-device requests: `{ txn_id, event_type, messages }`, as the native binding had it. */
  readonly body: string;
}

/** A to-device request as `shareRoomKey` returned it in the native binding. */
export interface ShareRequest {
  readonly txnId: string;
  readonly eventType: string;
  /** JSON with `messages`. */
  readonly body: string;
}

/**
 * What RustEngine writes into the settings it passes to `shareRoomKey`, in the native binding's
 * units: `rotationPeriod` in milliseconds (the WASM counts microseconds).
 */
export class EngineEncryptionSettings {
  algorithm: wasm.EncryptionAlgorithm | undefined = wasm.EncryptionAlgorithm.MegolmV1AesSha2;
  historyVisibility: wasm.HistoryVisibility = wasm.HistoryVisibility.Joined;
  rotationPeriod = 604_800_000n;
  rotationPeriodMessages = 100n;
}

type OtkCounts = Record<string, number>;

/**
 * The OlmMachine of `@matrix-org/matrix-sdk-crypto-wasm`, with the members and shapes that
 * matrix-bot-sdk 0.8.0's CryptoClient and RustEngine use from the native binding. Differences
 * bridged here: sync changes take a Map and a Set and return objects (the binding took an object
 * and an array and returned JSON); requests are plain objects whose to-device body carries its
 * transaction id; signatures come as a Map; rotation periods are microseconds; decryption and key
 * sharing take trust settings.
 *
 * Every call that can change crypto state ends with a checkpoint of the store: a call returns only
 * once what it changed is durable, so the engine sends nothing (one-time keys, room keys, an
 * encrypted event) that a crash could make the bot forget, and the sync token is stored only after
 * the to-device messages of its batch are.
 */
export class WasmOlmMachine {
  readonly #inner: wasm.OlmMachine;
  readonly #durable: DurableIndexedDb;
  readonly #trust: TrustPolicy;

  constructor(inner: wasm.OlmMachine, durable: DurableIndexedDb, trust: TrustPolicy) {
    this.#inner = inner;
    this.#durable = durable;
    this.#trust = trust;
  }

  get identityKeys(): wasm.IdentityKeys {
    return this.#inner.identityKeys;
  }

  get deviceId(): string {
    return this.#inner.deviceId.toString();
  }

  async #saved<T>(result: Promise<T>): Promise<T> {
    const value = await result;
    await this.#durable.checkpoint();
    return value;
  }

  /** Returns the to-device events as JSON, decrypted where they were encrypted. */
  async receiveSyncChanges(
    toDeviceEvents: string,
    deviceLists: wasm.DeviceLists,
    otkCounts: OtkCounts,
    unusedFallbackKeys: readonly string[],
  ): Promise<string> {
    const processed = await this.#saved(
      this.#inner.receiveSyncChanges(
        toDeviceEvents,
        deviceLists,
        new Map(Object.entries(otkCounts)),
        new Set(unusedFallbackKeys),
        this.#decryptionSettings(),
      ),
    );
    const events = processed
      .filter(
        (event) =>
          event.type === wasm.ProcessedToDeviceEventType.Decrypted ||
          event.type === wasm.ProcessedToDeviceEventType.PlainText,
      )
      .map((event) => JSON.parse(event.rawEvent) as unknown);
    return JSON.stringify(events);
  }

  async outgoingRequests(): Promise<EngineRequest[]> {
    const requests = await this.#saved(this.#inner.outgoingRequests());
    return requests.map((request) => engineRequest(request));
  }

  async markRequestAsSent(id: string, type: wasm.RequestType, response: string): Promise<void> {
    await this.#saved(this.#inner.markRequestAsSent(id, type, response));
  }

  async updateTrackedUsers(users: wasm.UserId[]): Promise<void> {
    await this.#saved(this.#inner.updateTrackedUsers(copies(users)));
  }

  async getMissingSessions(users: wasm.UserId[]): Promise<EngineRequest | null> {
    const request = await this.#saved(this.#inner.getMissingSessions(copies(users)));
    return request ? engineRequest(request) : null;
  }

  async shareRoomKey(
    roomId: wasm.RoomId,
    users: wasm.UserId[],
    settings: EngineEncryptionSettings,
  ): Promise<ShareRequest[]> {
    const requests = await this.#saved(
      this.#inner.shareRoomKey(roomId, copies(users), this.#encryptionSettings(settings)),
    );
    return requests.map((request) => ({
      txnId: request.id,
      eventType: request.event_type,
      body: request.body,
    }));
  }

  encryptRoomEvent(roomId: wasm.RoomId, eventType: string, content: string): Promise<string> {
    return this.#saved(this.#inner.encryptRoomEvent(roomId, eventType, content));
  }

  async decryptRoomEvent(event: string, roomId: wasm.RoomId): Promise<{ readonly event: string }> {
    const decrypted = await this.#saved(
      this.#inner.decryptRoomEvent(event, roomId, this.#decryptionSettings()),
    );
    return { event: decrypted.event };
  }

  /** Signatures of `message` by this device, as `get(user)` → `{ keyId: { isValid, signature } }`. */
  async sign(message: string) {
    const signatures = await this.#inner.sign(message);
    return {
      get: (user: wasm.UserId) => {
        const byKey: Record<string, { isValid: boolean; signature: { toBase64(): string } }> = {};
        for (const [keyId, maybe] of signatures.get(user) ?? new Map<string, wasm.MaybeSignature>()) {
          const signature = maybe.signature;
          if (maybe.isValid() && signature) byKey[keyId] = { isValid: true, signature };
        }
        return byKey;
      },
    };
  }

  /**
   * Calls `listener` with the room keys the crypto stores from now on — received, forwarded or
   * imported — so events that waited for them can be read. It runs after the keys are stored.
   */
  onRoomKeys(listener: (keys: { roomId: string; sessionId: string }[]) => Promise<void>): void {
    this.#inner.registerRoomKeyUpdatedCallback((infos) =>
      listener(infos.map((info) => ({ roomId: info.roomId.toString(), sessionId: info.sessionId }))),
    );
  }

  /** Backs room keys up from now on to `version`, encrypted to `key`'s public half; `key` is kept to restore. */
  async enableKeyBackup(key: wasm.BackupDecryptionKey, version: string): Promise<void> {
    await this.#saved(this.#inner.saveBackupDecryptionKey(key, version));
    await this.#saved(this.#inner.enableBackupV1(key.megolmV1PublicKey.publicKeyBase64, version));
  }

  /** The next batch of room keys to upload to the backup, if any are not backed up yet. */
  async nextKeyBackup(): Promise<{ id: string; body: string; version: string } | undefined> {
    const request = await this.#saved(this.#inner.backupRoomKeys());
    return request && { id: request.id, body: request.body, version: request.version };
  }

  async markKeyBackupSent(id: string, response: string): Promise<void> {
    await this.#saved(this.#inner.markRequestAsSent(id, wasm.RequestType.KeysBackup, response));
  }

  /** Imports room keys read from the backup (`room → session id → session`); resolves with how many. */
  async importBackedUpRoomKeys(
    sessions: ReadonlyMap<string, ReadonlyMap<string, unknown>>,
    version: string,
  ): Promise<number> {
    const byRoom = new Map<wasm.RoomId, Map<string, unknown>>();
    for (const [roomId, inRoom] of sessions) byRoom.set(new wasm.RoomId(roomId), new Map(inRoom));
    const result = await this.#saved(this.#inner.importBackedUpRoomKeys(byRoom, () => undefined, version));
    return result.importedCount;
  }

  /** How many room keys the device holds (`total`), and how many of them are in the key backup (`backedUp`). */
  async roomKeyCounts() {
    return this.#inner.roomKeyCounts();
  }

  #decryptionSettings(): wasm.DecryptionSettings {
    return new wasm.DecryptionSettings(
      this.#trust === "verified-only" ? wasm.TrustRequirement.CrossSigned : wasm.TrustRequirement.Untrusted,
    );
  }

  #encryptionSettings(from: EngineEncryptionSettings): wasm.EncryptionSettings {
    const settings = new wasm.EncryptionSettings();
    settings.algorithm = from.algorithm ?? wasm.EncryptionAlgorithm.MegolmV1AesSha2;
    settings.historyVisibility = from.historyVisibility;
    settings.rotationPeriod = from.rotationPeriod * 1_000n;
    settings.rotationPeriodMessages = from.rotationPeriodMessages;
    settings.sharingStrategy =
      this.#trust === "verified-only"
        ? wasm.CollectStrategy.identityBasedStrategy()
        : wasm.CollectStrategy.allDevices();
    return settings;
  }
}

/**
 * The WASM takes ownership of the ids in an array argument (they are unusable afterwards), while
 * RustEngine passes one array to several calls in a row, as the native binding allowed: each call
 * gets copies.
 */
function copies(users: readonly wasm.UserId[]): wasm.UserId[] {
  return users.map((user) => new wasm.UserId(user.toString()));
}

type WasmRequest =
  | wasm.KeysUploadRequest
  | wasm.KeysQueryRequest
  | wasm.KeysClaimRequest
  | wasm.ToDeviceRequest
  | wasm.SignatureUploadRequest
  | wasm.RoomMessageRequest
  | wasm.KeysBackupRequest;

function engineRequest(request: WasmRequest): EngineRequest {
  if (request instanceof wasm.ToDeviceRequest) {
    const { messages } = JSON.parse(request.body) as { messages: unknown };
    return {
      id: request.id,
      type: request.type,
      body: JSON.stringify({ txn_id: request.id, event_type: request.event_type, messages }),
    };
  }
  // RoomMessageRequest has no `body`; RustEngine refuses its type before reading one.
  return { id: request.id ?? "", type: request.type, body: "body" in request ? request.body : "{}" };
}
