/**
 * Reads a bot device's crypto state as the store holds it, in a machine of its own (never written
 * back), and decrypts one room event with it: what the bot could read, proven without asking it.
 */
import * as wasm from "@matrix-org/matrix-sdk-crypto-wasm";
import type { Store } from "@switchboard/core";
import { DurableIndexedDb } from "../../../packages/matrix/src/crypto/indexeddb/durable-indexeddb.ts";

export async function decryptWithStoredState(
  store: Store,
  device: { readonly userId: string; readonly deviceId: string },
  roomId: string,
  event: unknown,
): Promise<Record<string, unknown>> {
  const durable = new DurableIndexedDb({
    kv: store.namespace<string>("matrix"),
    scope: `${device.userId}:${device.deviceId}`,
  });
  if (!(await durable.restore())) throw new Error(`no crypto state for ${device.deviceId} in the store`);
  const machine = await wasm.OlmMachine.initialize(
    new wasm.UserId(device.userId),
    new wasm.DeviceId(device.deviceId),
    durable.storeName,
  );
  try {
    const decrypted = await machine.decryptRoomEvent(
      JSON.stringify(event),
      new wasm.RoomId(roomId),
      new wasm.DecryptionSettings(wasm.TrustRequirement.Untrusted),
    );
    return JSON.parse(decrypted.event) as Record<string, unknown>;
  } finally {
    machine.close();
    await durable.discard();
  }
}
