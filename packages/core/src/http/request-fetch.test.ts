import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestFetch } from "./request-fetch.ts";

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

/** A local server whose routes answer as the providers and Slack do; every request it saw is kept. */
let server: Server;
let base: string;
const seen: Seen[] = [];
/** Ends a streamed answer: the test decides when the rest arrives. */
let finishStream: (() => void) | undefined;
/** Resolves when the server saw a client go away before its answer ended. */
let clientLeft: Promise<void> = Promise.resolve();

const routes: Record<string, (response: ServerResponse, request: IncomingMessage) => void> = {
  "/json": (response) => {
    response.writeHead(200, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"] });
    response.end(JSON.stringify({ ok: true }));
  },
  "/stream": (response, request) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write("data: one\n\n");
    clientLeft = new Promise((resolve) => request.socket.once("close", () => resolve()));
    finishStream = () => response.end("data: two\n\n");
  },
  "/slow": () => {
    // Never answers: the client gives up.
  },
  "/empty": (response) => {
    response.writeHead(204);
    response.end();
  },
  "/moved": (response) => {
    response.writeHead(307, { location: "/json" });
    response.end("moved");
  },
  "/gzip": (response) => {
    response.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
    response.end(gzipSync("decoded text"));
  },
};

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      seen.push({
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const route = routes[new URL(request.url ?? "/", "http://x").pathname];
      if (route) route(response, request);
      else response.writeHead(404).end("no such route");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const lastSeen = () => seen.at(-1);

describe("requestFetch answers as fetch does", () => {
  it("sends a string body with its headers and gives back status, headers, URL and body", async () => {
    const response = await requestFetch(`${base}/json`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: "Bearer t" },
      body: "channel=C1&text=hello",
    });
    expect(lastSeen()).toMatchObject({
      method: "POST",
      url: "/json",
      body: "channel=C1&text=hello",
      headers: expect.objectContaining({
        "content-type": "application/x-www-form-urlencoded",
        authorization: "Bearer t",
        "content-length": "21",
      }),
    });
    // Sent by node:http, not by fetch (which marks every request it sends as a CORS fetch).
    expect(lastSeen()?.headers["sec-fetch-mode"]).toBeUndefined();
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${base}/json`);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await response.json()).toEqual({ ok: true });
  });

  it("sends a body without a type as text, as fetch does, and bytes as they are", async () => {
    await requestFetch(`${base}/json`, { method: "POST", body: "plain" });
    expect(lastSeen()?.headers["content-type"]).toBe("text/plain;charset=UTF-8");
    await requestFetch(new URL(`${base}/json`), {
      method: "POST",
      headers: new Headers({ "content-type": "application/octet-stream" }),
      body: new TextEncoder().encode("bytes"),
    });
    expect(lastSeen()).toMatchObject({
      body: "bytes",
      headers: expect.objectContaining({ "content-type": "application/octet-stream" }),
    });
  });

  it("streams the body as it arrives", async () => {
    const response = await requestFetch(`${base}/stream`, { method: "POST", body: "{}" });
    const reader = response.body?.getReader();
    if (!reader) throw new Error("a streamed answer has a body");
    const decoder = new TextDecoder();
    // The first piece is read while the server still holds the rest.
    expect(decoder.decode((await reader.read()).value)).toBe("data: one\n\n");
    finishStream?.();
    let rest = "";
    for (let piece = await reader.read(); !piece.done; piece = await reader.read())
      rest += decoder.decode(piece.value);
    expect(rest).toBe("data: two\n\n");
  });

  it("rejects with the signal's reason when aborted before the answer, and sends nothing when aborted already", async () => {
    const controller = new AbortController();
    const pending = requestFetch(`${base}/slow`, { method: "POST", body: "{}", signal: controller.signal });
    const reason = new DOMException("the model did not answer within 30 s", "TimeoutError");
    setImmediate(() => controller.abort(reason));
    await expect(pending).rejects.toBe(reason);
    const before = seen.length;
    await expect(requestFetch(`${base}/json`, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(seen.length).toBe(before);
  });

  it("rejects an abort whose reason is no Error as well, and never hangs on it", async () => {
    const controller = new AbortController();
    const pending = requestFetch(`${base}/slow`, { method: "POST", body: "{}", signal: controller.signal });
    setImmediate(() => controller.abort("the caller left"));
    await expect(pending).rejects.toBe("the caller left");
  });

  it("ends the body with the signal's reason when aborted while it is read, and closes the connection", async () => {
    const controller = new AbortController();
    const response = await requestFetch(`${base}/stream`, {
      method: "POST",
      body: "{}",
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    if (!reader) throw new Error("a streamed answer has a body");
    await reader.read();
    const reason = new Error("the turn was cancelled");
    controller.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
    await clientLeft;
  });

  it("rejects a refused connection as fetch does: TypeError, the cause underneath", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await requestFetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    expect(((failure as TypeError).cause as { code?: string }).code).toBe("ECONNREFUSED");
  });

  it("follows a redirect, refuses one when asked to, and hands one back when asked to", async () => {
    const followed = await requestFetch(`${base}/moved`, { method: "POST", body: "again" });
    expect(await followed.json()).toEqual({ ok: true });
    expect(lastSeen()).toMatchObject({ method: "POST", url: "/json", body: "again" });
    await expect(requestFetch(`${base}/moved`, { redirect: "error" })).rejects.toThrow("fetch failed");
    const manual = await requestFetch(`${base}/moved`, { redirect: "manual" });
    expect(manual.status).toBe(307);
    expect(manual.headers.get("location")).toBe("/json");
  });

  it("lets a reader cancel the body mid-answer: the connection closes, nothing else is raised", async () => {
    const response = await requestFetch(`${base}/stream`, { method: "POST", body: "{}" });
    const reader = response.body?.getReader();
    if (!reader) throw new Error("a streamed answer has a body");
    await reader.read();
    await reader.cancel();
    await clientLeft;
    finishStream?.();
    // A stream closed twice would surface as an uncaught error after the test; give it the turns to.
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  });

  it("answers a status without a body with none", async () => {
    const response = await requestFetch(`${base}/empty`, { method: "DELETE" });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("leaves to fetch what it does not send itself: multipart bodies, Request objects, compressed answers", async () => {
    const form = new FormData();
    form.append("file", new Blob(["contents"]), "notes.txt");
    await requestFetch(`${base}/json`, { method: "POST", body: form });
    expect(lastSeen()?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(lastSeen()?.body).toContain("contents");
    expect(lastSeen()?.headers["sec-fetch-mode"]).toBe("cors");

    const response = await requestFetch(
      new Request(`${base}/json`, { method: "POST", body: "as a request" }),
    );
    expect(await response.json()).toEqual({ ok: true });
    expect(lastSeen()?.body).toBe("as a request");

    const gzip = await requestFetch(`${base}/gzip`, { headers: { "accept-encoding": "gzip" } });
    expect(await gzip.text()).toBe("decoded text");
  });
});
