import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { E2eeUnavailableError, loadMatrixSdk, loadWasmCrypto } from "./load-sdk.ts";

describe("loadMatrixSdk", () => {
  const sdkRequire = createRequire(createRequire(import.meta.url).resolve("matrix-bot-sdk"));

  it("loads the SDK's client without the native crypto binding or the request package", () => {
    const { sdk } = loadMatrixSdk();
    const client = new sdk.MatrixClient("http://127.0.0.1:9", "token");
    expect(client.crypto).toBeUndefined();
    expect(() => (sdkRequire("request") as () => void)()).toThrow(/not used/);
    const binding = sdkRequire("@matrix-org/matrix-sdk-crypto-nodejs") as {
      OlmMachine: { initialize(): unknown };
    };
    expect(() => binding.OlmMachine.initialize()).toThrow(E2eeUnavailableError);
  });

  it("gives the SDK the WASM-backed binding once the WASM crypto is loaded", async () => {
    loadMatrixSdk();
    expect(await loadWasmCrypto()).toEqual({ available: true });
    const binding = sdkRequire("@matrix-org/matrix-sdk-crypto-nodejs") as {
      UserId: new (id: string) => { toString(): string };
    };
    expect(new binding.UserId("@bot:example.org").toString()).toBe("@bot:example.org");
  });
});
