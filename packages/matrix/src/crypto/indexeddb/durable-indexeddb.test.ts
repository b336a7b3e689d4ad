import * as wasm from "@matrix-org/matrix-sdk-crypto-wasm";
import { describe, expect, it } from "vitest";
import type { KeyValue } from "../../connect/key-value.ts";
import { CryptoStateWriteError, DurableIndexedDb } from "./durable-indexeddb.ts";

function memoryKv(): KeyValue & { map: Map<string, string>; failWrites: boolean } {
  const map = new Map<string, string>();
  const kv = {
    map,
    failWrites: false,
    get: async (key: string) => map.get(key),
    set: async (key: string, value: string) => {
      if (kv.failWrites) throw new Error("store unreachable");
      map.set(key, value);
    },
    delete: async (key: string) => map.delete(key),
  };
  return kv;
}

async function machineOn(durable: DurableIndexedDb) {
  return wasm.OlmMachine.initialize(
    new wasm.UserId("@bot:hs"),
    new wasm.DeviceId("BOTDEVICE"),
    durable.storeName,
  );
}

/** The one-time keys a keys-upload request would publish. */
async function pendingOneTimeKeys(machine: wasm.OlmMachine): Promise<string[]> {
  const upload = (await machine.outgoingRequests()).find(
    (request) => request.type === wasm.RequestType.KeysUpload,
  );
  return upload && "body" in upload ? Object.keys(JSON.parse(upload.body).one_time_keys ?? {}).sort() : [];
}

describe("DurableIndexedDb", () => {
  it("brings a device back from the store alone: same identity, same unpublished one-time keys", async () => {
    const kv = memoryKv();
    const first = new DurableIndexedDb({ kv, scope: "@bot:hs:BOTDEVICE" });
    expect(await first.restore()).toBe(false);
    const machine = await machineOn(first);
    const keysBefore = await pendingOneTimeKeys(machine);
    await first.checkpoint();
    const identity = machine.identityKeys.ed25519.toBase64();
    machine.close();
    await first.discard();

    const second = new DurableIndexedDb({ kv, scope: "@bot:hs:BOTDEVICE" });
    expect(await second.restore()).toBe(true);
    const again = await machineOn(second);
    expect(again.identityKeys.ed25519.toBase64()).toBe(identity);
    expect(keysBefore.length).toBeGreaterThan(0);
    // Re-uploading the very same keys is what keeps the homeserver from answering "already exists".
    expect(await pendingOneTimeKeys(again)).toEqual(keysBefore);
    again.close();
    await second.discard();
  });

  it("compacts batches into a snapshot and restores the same state from it", async () => {
    const kv = memoryKv();
    const durable = new DurableIndexedDb({ kv, scope: "s", compactAfter: 2 });
    await durable.restore();
    const machine = await machineOn(durable);
    await durable.checkpoint();
    for (const user of ["@a:hs", "@b:hs", "@c:hs"]) {
      await machine.updateTrackedUsers([new wasm.UserId(user)]);
      await durable.checkpoint();
    }
    const identity = machine.identityKeys.ed25519.toBase64();
    machine.close();
    await durable.discard();
    expect(kv.map.has("crypto:s:snapshot")).toBe(true);
    const batches = [...kv.map.keys()].filter((key) => key.includes(":batch:"));
    expect(batches.length).toBeLessThan(2);

    const restored = new DurableIndexedDb({ kv, scope: "s" });
    await restored.restore();
    const again = await machineOn(restored);
    expect(again.identityKeys.ed25519.toBase64()).toBe(identity);
    const tracked = [...(await again.trackedUsers())].map(String).sort();
    expect(tracked).toEqual(expect.arrayContaining(["@a:hs", "@b:hs", "@c:hs"]));
    again.close();
    await restored.discard();
  });

  it("rejects a checkpoint the store refused, and writes its changes with the next one", async () => {
    const kv = memoryKv();
    const durable = new DurableIndexedDb({ kv, scope: "s" });
    await durable.restore();
    kv.failWrites = true;
    const machine = await machineOn(durable);
    await expect(durable.checkpoint()).rejects.toThrow(CryptoStateWriteError);
    kv.failWrites = false;
    await durable.checkpoint();
    const identity = machine.identityKeys.ed25519.toBase64();
    machine.close();
    await durable.discard();
    const restored = new DurableIndexedDb({ kv, scope: "s" });
    expect(await restored.restore()).toBe(true);
    const again = await machineOn(restored);
    expect(again.identityKeys.ed25519.toBase64()).toBe(identity);
    again.close();
    await restored.discard();
  });
});
