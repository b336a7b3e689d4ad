import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpTool, HttpToolTimeoutError, httpToolConfigSchema } from "./http-tool.ts";

describe("createHttpTool", () => {
  let server: Server;
  let base = "";
  const seen: { method: string; url: string; body: string; headers: Record<string, unknown> }[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        seen.push({ method: request.method ?? "", url: request.url ?? "", body, headers: request.headers });
        // Never answers: the caller's timeout or signal has to end the call.
        if (request.url?.startsWith("/silent")) return;
        if (request.url?.startsWith("/huge")) {
          // An endpoint that would answer forever: the tool must stop reading.
          const chunk = "x".repeat(64 * 1024);
          const write = () => {
            while (response.write(chunk)) if (response.destroyed) return;
            if (!response.destroyed) response.once("drain", write);
          };
          write();
          return;
        }
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
    expect(seen.at(-1)).toMatchObject({ method: "POST", url: "/lookup", body: '{"order":42}' });
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

  it("sends the request id, run id, conversation key and an idempotency key as headers", async () => {
    await make({ url: `${base}/job` }).invoke(
      { report: "sales" },
      {
        configurable: {
          request_id: "req-7",
          run_id: "run-3",
          thread_id: "console:kitchen ☕",
          tool_call_id: "call-1",
        },
      },
    );
    expect(seen.at(-1)?.headers).toMatchObject({
      "x-switchboard-request-id": "req-7",
      "x-switchboard-run-id": "run-3",
      "x-switchboard-conversation": "console:kitchen %E2%98%95",
      "idempotency-key": "run-3:call-1",
    });
  });

  it("sends no request headers outside a tracked run", async () => {
    await make({ url: `${base}/plain` }).invoke({});
    expect(Object.keys(seen.at(-1)?.headers ?? {}).filter((h) => h.startsWith("x-switchboard"))).toEqual([]);
  });

  it("checks the arguments against its parameters before calling, naming what is wrong", async () => {
    const typed = make({ url: `${base}/forecast`, parameters: { city: "string", days: "integer?" } });
    const before = seen.length;
    await expect(typed.invoke({ city: "Oslo", days: "three" })).rejects.toThrow(/days.*integer/s);
    await expect(typed.invoke({ days: 3 })).rejects.toThrow(/city/);
    await expect(typed.invoke({ city: "Oslo", colour: "red" })).rejects.toThrow(/colour|additional/i);
    expect(seen.length).toBe(before);
    expect(await typed.invoke({ city: "Oslo", days: 3 })).toBe("ok POST");
    expect(JSON.parse(seen.at(-1)?.body ?? "")).toEqual({ city: "Oslo", days: 3 });
  });

  it("caps what it reads of a response that never ends", async () => {
    const text = await make({ url: `${base}/huge`, maxResponseChars: 1_000 }).invoke({});
    expect(text).toBe(`${"x".repeat(1_000)}… (truncated)`);
  });

  it("rejects a config without a usable name or URL, or with a name the team or MCP servers use", () => {
    const parse = (input: object) => () =>
      httpToolConfigSchema.parse({ description: "x", url: base, ...input });
    expect(parse({ name: "Bad Name" })).toThrow();
    expect(parse({ name: "ok", url: "not a url" })).toThrow();
    expect(parse({ name: "files__read" })).toThrow(/single _/);
    expect(parse({ name: "find_tools" })).toThrow(/built-in/);
    expect(parse({ name: "transfer_to_billing" })).toThrow(/built-in/);
  });
});
