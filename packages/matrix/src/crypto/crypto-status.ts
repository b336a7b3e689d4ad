import * as wasm from "@matrix-org/matrix-sdk-crypto-wasm";
import type { KeyValue } from "../connect/key-value.ts";
import { DurableIndexedDb } from "./indexeddb/durable-indexeddb.ts";

/** The homeserver requests a status check makes (the SDK client's `doRequest`). */
export type StatusRequest = (method: "POST", path: string, query: null, body: unknown) => Promise<unknown>;

export interface CryptoStatus {
  readonly deviceId: string;
  /** Whether the store holds crypto state for this device. */
  readonly stored: boolean;
  /** The identity key the homeserver publishes for the device, if any. */
  readonly serverEd25519: string | undefined;
  /** The identity key in the stored state, if any. */
  readonly storedEd25519: string | undefined;
  /** Signed curve25519 one-time keys the homeserver holds for the device. */
  readonly oneTimeKeys: number;
}

function pick(value: unknown, ...path: string[]): unknown {
  let at = value;
  for (const key of path)
    at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}

/**
 * Reads the device's crypto state from the store (into a machine of its own, never written back and
 * never connected) and what the homeserver holds for the device: its published identity key and
 * its one-time-key count. Sends nothing but two queries, so it is safe beside a running bot.
 */
export async function readCryptoStatus(options: {
  readonly kv: KeyValue;
  readonly userId: string;
  readonly deviceId: string;
  readonly passphrase: string;
  readonly request: StatusRequest;
}): Promise<CryptoStatus> {
  const { kv, userId, deviceId, request } = options;
  const query = await request("POST", "/_matrix/client/v3/keys/query", null, {
    device_keys: { [userId]: [deviceId] },
  });
  const serverKey = pick(query, "device_keys", userId, deviceId, "keys", `ed25519:${deviceId}`);
  // An upload of nothing answers with the counts the homeserver holds.
  const counts = await request("POST", "/_matrix/client/v3/keys/upload", null, {});
  const oneTimeKeys = pick(counts, "one_time_key_counts", "signed_curve25519");
  const durable = new DurableIndexedDb({ kv, scope: `${userId}:${deviceId}` });
  const stored = await durable.restore();
  let storedEd25519: string | undefined;
  if (stored) {
    const machine = await wasm.OlmMachine.initialize(
      new wasm.UserId(userId),
      new wasm.DeviceId(deviceId),
      durable.storeName,
      options.passphrase === "" ? undefined : options.passphrase,
    );
    storedEd25519 = machine.identityKeys.ed25519.toBase64();
    machine.close();
  }
  await durable.discard();
  return {
    deviceId,
    stored,
    serverEd25519: typeof serverKey === "string" ? serverKey : undefined,
    storedEd25519,
    oneTimeKeys: typeof oneTimeKeys === "number" ? oneTimeKeys : 0,
  };
}

/** The doctor's lines: facts as notes, a mismatch as a warning. */
export function describeCryptoStatus(status: CryptoStatus): { notes: string[]; warnings: string[] } {
  const device = `Matrix encryption device ${status.deviceId}`;
  if (!status.stored) {
    return {
      notes: [
        `${device}: no crypto state in the store yet (start creates it)${status.serverEd25519 ? "" : "; no keys uploaded yet"}`,
      ],
      warnings: status.serverEd25519
        ? [
            `${device} already has keys on the homeserver but none in the store: messages encrypted for it before cannot be read; log in as a new device (a new access token) to start clean`,
          ]
        : [],
    };
  }
  if (status.serverEd25519 === undefined) {
    return {
      notes: [`${device}: crypto state in the store; keys not uploaded yet (start uploads them)`],
      warnings: [],
    };
  }
  if (status.serverEd25519 !== status.storedEd25519) {
    return {
      notes: [],
      warnings: [
        `${device}: the homeserver publishes a different identity key than the store holds (the store was replaced or belongs to another installation); log in as a new device (a new access token) so the two agree`,
      ],
    };
  }
  return {
    notes: [
      `${device}: crypto state in the store matches the homeserver's keys; ${status.oneTimeKeys} one-time keys uploaded`,
    ],
    warnings: [],
  };
}
