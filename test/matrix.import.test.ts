import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const entry = fileURLToPath(new URL("../packages/matrix/src/index.ts", import.meta.url));
const loader = fileURLToPath(new URL("../packages/matrix/src/sdk/load-sdk.ts", import.meta.url));

/** Plain Node (type stripping, no test runner in between), as the CLI runs it. */
async function node(script: string): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ["--disable-warning=ExperimentalWarning", "--no-deprecation", "--input-type=module", "-e", script],
    {
      timeout: 20_000,
    },
  );
  return stdout.trim();
}

describe("@switchboard/matrix without the native crypto binding (it never loads)", () => {
  it("imports, and builds an adapter, without touching the SDK", async () => {
    const out = await node(
      `const m = await import(${JSON.stringify(entry)});
       const adapter = await m.createMatrixAdapter({ homeserverUrl: "http://127.0.0.1:9", accessToken: "t" });
       console.log(Object.keys(m).sort().join(","), adapter.platform, adapter.limits.maxMessageLength);`,
    );
    expect(out).toBe("createMatrixAdapter,matrixAdapterConfigSchema matrix 4000");
  });

  it("loads matrix-bot-sdk, and the WASM crypto on demand, in plain Node", async () => {
    const out = await node(
      `const { loadMatrixSdk, loadWasmCrypto } = await import(${JSON.stringify(loader)});
       const { sdk } = loadMatrixSdk();
       console.log(typeof sdk.MatrixClient, JSON.stringify(await loadWasmCrypto()));`,
    );
    expect(out).toBe(`function ${JSON.stringify({ available: true })}`);
  });
});
