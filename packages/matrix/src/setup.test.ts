/**
 * Setup offers encryption only when it can run: the WASM crypto starts here and the homeserver
 * takes device keys. A homeserver without the key endpoints, or a token without a device, is named
 * in the reason. (Against the real Synapse: test/setup.wizard.e2e.test.ts.)
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { checkEncryptionSupport } from "./setup.ts";

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A homeserver that answers keys/upload with `status` and `body`, and remembers what it got. */
async function homeserver(status: number, body: unknown): Promise<{ url: string; uploads: unknown[] }> {
  const uploads: unknown[] = [];
  server = createServer((request, response) => {
    let raw = "";
    request.on("data", (part: Buffer) => {
      raw += part.toString();
    });
    request.on("end", () => {
      if (request.url === "/_matrix/client/v3/keys/upload" && request.method === "POST") {
        uploads.push(JSON.parse(raw));
        response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
        return;
      }
      response.writeHead(404, { "content-type": "application/json" }).end('{"errcode":"M_UNRECOGNIZED"}');
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, uploads };
}

const bot = { accessToken: "token", userId: "@bot:example.org", deviceId: "BOTDEVICE" };

describe("checkEncryptionSupport", () => {
  it("is available when the WASM machine starts and the homeserver answers keys/upload with its counts", async () => {
    const hs = await homeserver(200, { one_time_key_counts: { signed_curve25519: 0 } });
    const support = await checkEncryptionSupport({ ...bot, homeserverUrl: hs.url });
    expect(support).toEqual({ available: true, detail: expect.stringContaining("takes device keys") });
    // Nothing was uploaded: the empty upload only asks for the counts.
    expect(hs.uploads).toEqual([{}]);
  }, 30_000);

  it("says why not when the homeserver has no key endpoints, or the token no device", async () => {
    const none = await homeserver(404, { errcode: "M_UNRECOGNIZED", error: "Unrecognized request" });
    expect(await checkEncryptionSupport({ ...bot, homeserverUrl: none.url })).toEqual({
      available: false,
      reason:
        "the homeserver does not take device keys (POST /_matrix/client/v3/keys/upload answered M_UNRECOGNIZED)",
    });
    expect(await checkEncryptionSupport({ ...bot, deviceId: undefined, homeserverUrl: none.url })).toEqual({
      available: false,
      reason: expect.stringContaining("does not say which device"),
    });
  }, 30_000);
});
