import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { E2eeUnavailableError, loadMatrixSdk } from "./load-sdk.ts";

describe("loadMatrixSdk", () => {
  it("loads the SDK's client whether or not the native crypto binding is installed", () => {
    const { sdk } = loadMatrixSdk();
    const client = new sdk.MatrixClient("http://127.0.0.1:9", "token");
    expect(client.crypto).toBeUndefined();
  });

  const { crypto } = loadMatrixSdk();
  it.runIf(!crypto.available)(
    "without the binding, says why and fails loudly if crypto is touched anyway",
    () => {
      expect(crypto.available === false && crypto.reason).toMatch(
        /@matrix-org\/matrix-sdk-crypto-nodejs did not load/,
      );
      const sdkRequire = createRequire(createRequire(import.meta.url).resolve("matrix-bot-sdk"));
      const binding = sdkRequire("@matrix-org/matrix-sdk-crypto-nodejs") as {
        OlmMachine: { initialize(): unknown };
      };
      expect(() => binding.OlmMachine.initialize()).toThrow(E2eeUnavailableError);
    },
  );
});
