import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpTool, HttpToolTimeoutError, httpToolConfigSchema } from "./http-tool.ts";

describe("createHttpTool", () => {
  let server: Server;
  let base = "";
  const seen: { method: string; url: string; body: string }[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        seen.push({ method: request.method ?? "", url: request.url ?? "", body });
        // Never answers: the caller's timeout or signal has to end the call.
        if (request.url?.startsWith("/silent")) return;
        if (request.url?.startsWith("/broken")) {
          response.writeHead(503);
          response.end("down for maintenance");
        } else response.end(`ok ${request.method}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const make = (input: Record<string, unknown>) =>
    createHttpTool(httpToolConfigSchema.parse({ name: "lookup", description: "look things up", ...input }));

  it("POSTs the model's arguments as JSON and returns the response text", async () => {
    expect(await make({ url: `${base}/lookup` }).invoke({ order: 42 })).toBe("ok POST");
    expect(seen.at(-1)).toEqual({ method: "POST", url: "/lookup", body: '{"order":42}' });
  });

  it("sends GET arguments as the query string", async () => {
    expect(await make({ url: `${base}/find`, method: "GET" }).invoke({ q: "a b" })).toBe("ok GET");
    expect(seen.at(-1)?.url).toBe("/find?q=a+b");
  });

  it("fails with the status and body when the endpoint fails", async () => {
    await expect(make({ url: `${base}/broken` }).invoke({})).rejects.toThrow(
      "lookup answered HTTP 503: down for maintenance",
    );
  });

  it("gives up after timeoutSeconds with an error naming the tool and the setting", async () => {
    const call = make({ url: `${base}/silent`, timeoutSeconds: 0.2 }).invoke({});
    await expect(call).rejects.toThrow(HttpToolTimeoutError);
    await expect(call).rejects.toThrow("lookup did not answer within 0.2 s");
  });

  it("stops when the run is cancelled, without waiting for the timeout", async () => {
    const cancel = new AbortController();
    const call = make({ url: `${base}/silent`, timeoutSeconds: 30 }).invoke({}, { signal: cancel.signal });
    setTimeout(() => cancel.abort(new Error("run stopped")), 50);
    const started = Date.now();
    await expect(call).rejects.toThrow();
    await expect(call).rejects.not.toThrow(HttpToolTimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("rejects a config without a usable name or URL", () => {
    expect(() => httpToolConfigSchema.parse({ name: "Bad Name", description: "x", url: base })).toThrow();
    expect(() => httpToolConfigSchema.parse({ name: "ok", description: "x", url: "not a url" })).toThrow();
  });
});
