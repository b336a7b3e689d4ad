import * as wasm from "@matrix-org/matrix-sdk-crypto-wasm";
import { decryptAttachment, encryptAttachment } from "./attachments.ts";
import type { DurableIndexedDb } from "./indexeddb/durable-indexeddb.ts";
import { EngineEncryptionSettings, type TrustPolicy, WasmOlmMachine } from "./wasm-olm-machine.ts";

/**
 * What one bot device's OlmMachine is made from, registered under the crypto store's
 * `storagePath` (the key matrix-bot-sdk passes to `OlmMachine.initialize`).
 */
export interface MachineSetup {
  readonly durable: DurableIndexedDb;
  /** Encrypts the crypto state at rest (the WASM's store cipher); empty: not encrypted. */
  readonly passphrase: string;
  readonly trust: TrustPolicy;
  /** Told the machine once it exists (for status, metrics and closing). */
  readonly onMachine: (machine: WasmOlmMachine) => void;
}

const setups = new Map<string, MachineSetup>();

/** Makes `storagePath` initialize a machine from `setup`; returns the function that unregisters it. */
export function registerMachineSetup(storagePath: string, setup: MachineSetup): () => void {
  setups.set(storagePath, setup);
  return () => setups.delete(storagePath);
}

/** Thrown when matrix-bot-sdk asks for a machine nobody set up (a client built outside openConnection). */
export class UnknownCryptoStoreError extends Error {
  constructor(storagePath: string) {
    super(`no Matrix crypto store is set up under ${JSON.stringify(storagePath)}`);
    this.name = "UnknownCryptoStoreError";
  }
}

class EncryptedAttachmentInput {
  readonly encryptedData: Uint8Array;
  readonly mediaEncryptionInfo: string;
  constructor(encryptedData: Uint8Array, mediaEncryptionInfo: string) {
    this.encryptedData = encryptedData;
    this.mediaEncryptionInfo = mediaEncryptionInfo;
  }
}

/**
 * The module matrix-bot-sdk 0.8.0 requires as `@matrix-org/matrix-sdk-crypto-nodejs`: the eight
 * members its CryptoClient and RustEngine use, on the WASM build. Identifiers and device lists are
 * the WASM's own classes (same constructors); the machine is WasmOlmMachine.
 */
export const olmBinding = {
  OlmMachine: {
    async initialize(
      userId: wasm.UserId,
      deviceId: wasm.DeviceId,
      storagePath: string,
      _passphrase: string,
      _storeType: number,
    ): Promise<WasmOlmMachine> {
      const setup = setups.get(storagePath);
      if (!setup) throw new UnknownCryptoStoreError(storagePath);
      const inner = await wasm.OlmMachine.initialize(
        userId,
        deviceId,
        setup.durable.storeName,
        setup.passphrase === "" ? undefined : setup.passphrase,
      );
      // A new device's identity keys are durable before anything about them leaves.
      await setup.durable.checkpoint();
      const machine = new WasmOlmMachine(inner, setup.durable, setup.trust);
      setup.onMachine(machine);
      return machine;
    },
  },
  UserId: wasm.UserId,
  DeviceId: wasm.DeviceId,
  RoomId: wasm.RoomId,
  DeviceLists: wasm.DeviceLists,
  EncryptionSettings: EngineEncryptionSettings,
  EncryptedAttachment: EncryptedAttachmentInput,
  Attachment: {
    encrypt(file: Uint8Array) {
      const { data, info } = encryptAttachment(file);
      return { encryptedData: data, mediaEncryptionInfo: JSON.stringify(info) };
    },
    decrypt(attachment: EncryptedAttachmentInput): Uint8Array {
      return decryptAttachment(attachment.encryptedData, JSON.parse(attachment.mediaEncryptionInfo));
    },
  },
};
