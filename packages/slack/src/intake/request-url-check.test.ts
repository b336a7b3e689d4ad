import { createHmac } from "node:crypto";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { awaitSignedRequest, RequestUrlListenError, type RequestUrlVerdict } from "./request-url-check.ts";

const SECRET = "8f14e45fceea167a5a36dedd4bea2543";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Posts `body` to the check as Slack would: signed with `secret` at `timestamp` (seconds), unless unsigned. */
async function post(
  port: number,
  body: string,
  sign: { secret?: string; timestamp?: number; unsigned?: boolean; path?: string } = {},
): Promise<{ status: number; text: string }> {
  const timestamp = sign.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = `v0=${createHmac("sha256", sign.secret ?? SECRET)
    .update(`v0:${timestamp}:${body}`)
    .digest("hex")}`;
  const response = await fetch(`http://127.0.0.1:${port}${sign.path ?? "/slack/events"}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(sign.unsigned
        ? {}
        : { "x-slack-request-timestamp": String(timestamp), "x-slack-signature": signature }),
    },
    body,
  });
  return { status: response.status, text: await response.text() };
}

/** Starts the check, waits until it listens, and hands back its verdict promise. */
async function listening(timeoutMs = 10_000, signal?: AbortSignal) {
  const port = await freePort();
  const verdict = awaitSignedRequest({
    signingSecret: SECRET,
    port,
    host: "127.0.0.1",
    path: "/slack/events",
    timeoutMs,
    ...(signal ? { signal } : {}),
  });
  for (let tries = 0; ; tries++) {
    const probe = await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
    if (probe) break;
    if (tries > 200) throw new Error("the check never listened");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { port, verdict };
}

const challenge = JSON.stringify({ token: "t", challenge: "c-123", type: "url_verification" });

describe("awaitSignedRequest", () => {
  it.each<[string, Parameters<typeof post>[2], number, RequestUrlVerdict]>([
    [
      "answers the challenge when signed with the secret",
      {},
      200,
      { outcome: "matches", urlVerification: true },
    ],
    [
      "refuses another secret",
      { secret: "0cc175b9c0f1b6a831c399e269772661" },
      401,
      { outcome: "wrong-secret" },
    ],
    [
      "names the clock when the timestamp is ten minutes old",
      { timestamp: Math.floor(Date.now() / 1000) - 600 },
      401,
      { outcome: "clock", reason: "stale timestamp" },
    ],
  ])("%s", async (_name, sign, status, expected) => {
    const { port, verdict } = await listening();
    const answer = await post(port, challenge, sign);
    expect(answer.status).toBe(status);
    if (status === 200) expect(answer.text).toBe("c-123");
    expect(await verdict).toEqual(expected);
  });

  it("refuses unsigned requests and other paths, and goes on waiting for Slack's", async () => {
    const { port, verdict } = await listening();
    expect((await post(port, challenge, { unsigned: true })).status).toBe(401);
    expect((await post(port, challenge, { path: "/other" })).status).toBe(404);
    expect((await post(port, challenge)).status).toBe(200);
    expect(await verdict).toEqual({ outcome: "matches", urlVerification: true });
  });

  it("ends when skipped or out of time, and says when the port is taken", async () => {
    const stop = new AbortController();
    const skipped = await listening(10_000, stop.signal);
    stop.abort();
    expect(await skipped.verdict).toEqual({ outcome: "stopped" });
    expect(await (await listening(200)).verdict).toEqual({ outcome: "timed-out" });

    const { port, verdict } = await listening();
    await expect(
      awaitSignedRequest({
        signingSecret: SECRET,
        port,
        host: "127.0.0.1",
        path: "/slack/events",
        timeoutMs: 1000,
      }),
    ).rejects.toThrow(RequestUrlListenError);
    await post(port, challenge);
    await verdict;
  });
});
