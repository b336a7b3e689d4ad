/**
 * The matrix-bot-sdk internals library-patches.ts relies on, on the real SDK: this fails when an
 * upgrade changes one of them, before a patch silently stops working.
 */
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { olmBinding } from "./crypto/olm-binding.ts";
import { WasmOlmMachine } from "./crypto/wasm-olm-machine.ts";
import { loadMatrixSdk } from "./sdk/load-sdk.ts";

const require = createRequire(import.meta.url);
const sdkLib = dirname(require.resolve("matrix-bot-sdk"));

/** The SDK's compiled sources under lib/e2ee, where it uses the crypto binding. */
async function e2eeSources(): Promise<string> {
  const directory = join(sdkLib, "e2ee");
  const files = (await readdir(directory)).filter((name) => name.endsWith(".js"));
  const texts = await Promise.all(files.map((name) => readFile(join(directory, name), "utf8")));
  return texts.join("\n");
}

function membersUsed(source: string, pattern: RegExp): string[] {
  return [...new Set([...source.matchAll(pattern)].map((match) => match[1] ?? ""))].sort();
}

describe("matrix-bot-sdk internals the Matrix adapter relies on", () => {
  it("MatrixClient syncs through protected startSyncInternal, doSync(token), processSync(raw, emit) and syncingTimeout", async () => {
    const { MatrixClient } = loadMatrixSdk().sdk;
    const prototype = MatrixClient.prototype as unknown as Record<string, unknown>;
    // The SDK wraps its methods for metrics ((...args) => …), so their signatures are read from the source.
    expect(["startSyncInternal", "doSync", "processSync"].map((name) => typeof prototype[name])).toEqual([
      "function",
      "function",
      "function",
    ]);
    const source = await readFile(join(sdkLib, "MatrixClient.js"), "utf8");
    expect(source).toMatch(/\n {4}startSyncInternal\(\) \{/);
    expect(source).toMatch(/\n {4}doSync\(token\) \{/);
    expect(source).toMatch(/\n {4}async processSync\(raw, emitFn = null\) \{/);
    expect(source).toContain("timeout: Math.max(0, this.syncingTimeout)");
    const client = new MatrixClient("http://127.0.0.1:1", "token");
    expect(typeof (client as unknown as { syncingTimeout: unknown }).syncingTimeout).toBe("number");
  });

  it("the SDK uses exactly the crypto binding members our WASM binding provides", async () => {
    const used = membersUsed(await e2eeSources(), /matrix_sdk_crypto_nodejs_1\.([A-Za-z]+)/g);
    expect(used).toEqual(Object.keys(olmBinding).sort());
  });

  it("every OlmMachine method the SDK calls exists on our machine", async () => {
    const called = membersUsed(await e2eeSources(), /\bmachine\.([A-Za-z]+)\(/g);
    expect(called.length).toBeGreaterThan(0);
    const prototype = WasmOlmMachine.prototype as unknown as Record<string, unknown>;
    expect(called.filter((name) => typeof prototype[name] !== "function")).toEqual([]);
  });

  it("the two modules replaced in the SDK's require cache are still the ones it requires", async () => {
    const sdkRequire = createRequire(require.resolve("matrix-bot-sdk"));
    expect(() => sdkRequire.resolve("@matrix-org/matrix-sdk-crypto-nodejs")).not.toThrow();
    expect(() => sdkRequire.resolve("request")).not.toThrow();
    const sources = await e2eeSources();
    expect(sources).toContain('require("@matrix-org/matrix-sdk-crypto-nodejs")');
  });
});
