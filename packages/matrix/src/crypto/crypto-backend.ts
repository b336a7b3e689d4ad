import type { ICryptoRoomInformation, ICryptoStorageProvider } from "matrix-bot-sdk";
import type { KeyValue } from "../connect/key-value.ts";
import type { MatrixSdk } from "../sdk/load-sdk.ts";
import { DurableIndexedDb } from "./indexeddb/durable-indexeddb.ts";
import { registerMachineSetup } from "./olm-binding.ts";
import type { TrustPolicy, WasmOlmMachine } from "./wasm-olm-machine.ts";

export interface CryptoBackendOptions {
  readonly kv: KeyValue;
  readonly userId: string;
  /** The device the access token belongs to: the crypto state is this device's. */
  readonly deviceId: string;
  readonly passphrase: string;
  readonly trust: TrustPolicy;
}

/** One bot device's end-to-end encryption: the crypto store for matrix-bot-sdk and the machine it runs. */
export interface CryptoBackend {
  /** Give this to the MatrixClient: its CryptoClient then runs on the WASM machine. */
  readonly cryptoStore: ICryptoStorageProvider;
  /** Whether the store held this device's crypto state when the backend opened. */
  readonly restored: boolean;
  readonly deviceId: string;
  /** The machine, once matrix-bot-sdk's CryptoClient has prepared it (at client start). */
  machine(): WasmOlmMachine | undefined;
  readonly durable: DurableIndexedDb;
  /** Writes what is pending and lets the machine go. */
  close(): Promise<void>;
}

/**
 * matrix-bot-sdk accepts only its RustSdkCryptoStorageProvider (it checks with instanceof), whose
 * constructor writes a JSON file beside a native store. This provider keeps the same two things —
 * the device id and each room's encryption settings — in our store instead, and passes the check
 * by prototype without running that constructor. `storagePath` is the key under which
 * `OlmMachine.initialize` finds the durable IndexedDB (see olm-binding.ts).
 */
function storeCryptoStorageProvider(
  sdk: MatrixSdk,
  kv: KeyValue,
  scope: string,
  deviceId: string,
  storagePath: string,
): ICryptoStorageProvider {
  const roomKey = (roomId: string) => `crypto:${scope}:room:${roomId}`;
  const provider: ICryptoStorageProvider & { storagePath: string; storageType: number } = {
    storagePath,
    storageType: 0,
    // The access token decides the device; a device id kept from an older token would be wrong.
    getDeviceId: async () => deviceId,
    setDeviceId: async () => {},
    async getRoom(roomId: string): Promise<ICryptoRoomInformation> {
      const stored = await kv.get(roomKey(roomId));
      // The SDK's type leaves out "unknown", which it checks for with a falsy test.
      return (stored === undefined ? undefined : JSON.parse(stored)) as ICryptoRoomInformation;
    },
    async storeRoom(roomId: string, config: ICryptoRoomInformation): Promise<void> {
      await kv.set(roomKey(roomId), JSON.stringify(config));
    },
  };
  Object.setPrototypeOf(provider, sdk.RustSdkCryptoStorageProvider.prototype);
  return provider;
}

/** Restores the device's crypto state from the store and prepares what the SDK's crypto client needs. */
export async function openCryptoBackend(
  sdk: MatrixSdk,
  options: CryptoBackendOptions,
): Promise<CryptoBackend> {
  const scope = `${options.userId}:${options.deviceId}`;
  const durable = new DurableIndexedDb({ kv: options.kv, scope });
  const restored = await durable.restore();
  let machine: WasmOlmMachine | undefined;
  const unregister = registerMachineSetup(durable.storeName, {
    durable,
    passphrase: options.passphrase,
    trust: options.trust,
    onMachine: (created) => {
      machine = created;
    },
  });
  return {
    cryptoStore: storeCryptoStorageProvider(sdk, options.kv, scope, options.deviceId, durable.storeName),
    restored,
    deviceId: options.deviceId,
    durable,
    machine: () => machine,
    async close() {
      unregister();
      // The machine is left to the garbage collector rather than closed: closing it while a call
      // of the SDK's (a to-device send still in flight at shutdown) holds it fails in the WASM.
      machine = undefined;
      await durable.close();
    },
  };
}
