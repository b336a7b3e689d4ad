import { McpServers } from "@switchboard/core";
import type { McpServerState } from "@switchboard/core/host";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpOrderServer, startHttpOrderServer } from "./support/mcp/http-order-server.ts";
import { httpOrderServerConfig, stdioOrderServer } from "./support/mcp/order-servers.ts";

const runConfig = (toolCallId: string) => ({
  configurable: {
    thread_id: "test:general:root-a",
    request_id: "req-123",
    run_id: "run-9",
    tool_call_id: toolCallId,
  },
});

const toolNamed = (servers: McpServers, name: string) => {
  const found = servers.entries().find((entry) => entry.tool.name === name);
  if (!found)
    throw new Error(
      `no tool ${name} in ${servers
        .entries()
        .map((e) => e.tool.name)
        .join(", ")}`,
    );
  return found.tool;
};

describe("MCP servers (real servers on the official SDK)", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("lists a stdio server's tools as <server>__<tool>, applies allow/deny, and calls them with the request ids in _meta", async () => {
    const stdio = await stdioOrderServer({
      denyTools: ["internal_*"],
      status: { lookup_order: "is looking up your order…" },
    });
    cleanups.push(stdio.cleanup);
    const servers = await McpServers.start([stdio.config]);
    cleanups.push(() => servers.close());
    expect(
      servers
        .entries()
        .map((entry) => entry.tool.name)
        .sort(),
    ).toEqual([
      "orders__call_context",
      "orders__lookup_order",
      "orders__order_history",
      "orders__refund_payment",
      "orders__warehouse_check",
    ]);
    const lookup = toolNamed(servers, "orders__lookup_order");
    // Its progress text reaches the catalog, which the team shows while the tool runs.
    expect(servers.entries().find((entry) => entry.tool === lookup)?.status).toBe(
      "is looking up your order…",
    );
    expect(
      servers.entries().find((entry) => entry.tool.name === "orders__order_history")?.status,
    ).toBeUndefined();
    expect(lookup.description).toBe("Look up an order's shipping status by its order number");
    expect(await lookup.invoke({ orderId: "A-17" }, runConfig("c1"))).toBe(
      "Order A-17: shipped on 2026-11-20, arriving Friday.",
    );
    const context = JSON.parse(
      String(await toolNamed(servers, "orders__call_context").invoke({}, runConfig("c2"))),
    );
    expect(context.meta).toMatchObject({
      "switchboard/requestId": "req-123",
      "switchboard/runId": "run-9",
      "switchboard/conversation": "test:general:root-a",
      "switchboard/idempotencyKey": "run-9:c2",
    });
    expect(servers.states()).toMatchObject([
      { name: "orders", transport: "stdio", status: "connected", tools: 5 },
    ]);
  });

  it("turns a tool's own error and a malformed call into errors the model can read", async () => {
    const stdio = await stdioOrderServer();
    cleanups.push(stdio.cleanup);
    const servers = await McpServers.start([stdio.config]);
    cleanups.push(() => servers.close());
    const lookup = toolNamed(servers, "orders__lookup_order");
    await expect(lookup.invoke({ orderId: "17" }, runConfig("c1"))).rejects.toThrow(
      /order numbers look like A-17/,
    );
    await expect(lookup.invoke({ order: "A-17" }, runConfig("c2"))).rejects.toThrow(/orderId/);
    // Neither took the server down.
    expect(servers.states()[0]?.status).toBe("connected");
  });

  it("cuts a long result at maxResultChars, and gives up on a slow call after callTimeoutSeconds without dropping the server", async () => {
    const stdio = await stdioOrderServer({ maxResultChars: 500, callTimeoutSeconds: 0.5 });
    cleanups.push(stdio.cleanup);
    const servers = await McpServers.start([stdio.config]);
    cleanups.push(() => servers.close());
    const history = await toolNamed(servers, "orders__order_history").invoke({
      customerId: "c-1",
      lines: 50_000,
    });
    expect(history).toHaveLength(500 + "… (truncated)".length);
    expect(history).toMatch(/^c-1 order A-0: delivered\n.*… \(truncated\)$/s);
    await expect(toolNamed(servers, "orders__warehouse_check").invoke({ seconds: 5 })).rejects.toThrow(
      'warehouse_check of the tool server "orders" did not answer within 0.5 s (its callTimeoutSeconds)',
    );
    expect(servers.states()[0]?.status).toBe("connected");
    expect(await toolNamed(servers, "orders__lookup_order").invoke({ orderId: "A-5" })).toContain("shipped");
  });

  it("a killed stdio server makes its tools answer 'unavailable' at once, and they work again after it reconnects", async () => {
    const stdio = await stdioOrderServer();
    cleanups.push(stdio.cleanup);
    const servers = await McpServers.start([stdio.config]);
    cleanups.push(() => servers.close());
    const changes: McpServerState["status"][] = [];
    servers.onChange((states) => changes.push(states[0]?.status ?? "stopped"));
    const lookup = toolNamed(servers, "orders__lookup_order");
    expect(await lookup.invoke({ orderId: "A-1" }, runConfig("c0"))).toContain("shipped");
    await stdio.refuse();
    await stdio.kill();
    await waitFor("the server to be seen down", () => servers.states()[0]?.status === "down");
    await expect(lookup.invoke({ orderId: "A-17" }, runConfig("c1"))).rejects.toThrow(
      /tool server "orders" is unavailable/,
    );
    expect(servers.states()[0]).toMatchObject({ status: "down", tools: 6 });
    expect(servers.states()[0]?.lastError).toBeTruthy();
    await stdio.allow();
    await waitFor("the server to reconnect", () => servers.states()[0]?.status === "connected", 10_000);
    expect(await lookup.invoke({ orderId: "A-17" }, runConfig("c2"))).toContain("shipped");
    expect(changes).toContain("down");
    expect(changes.at(-1)).toBe("connected");
  });

  it("an HTTP server gets the request ids as headers; stopped, its tools say so; restarted, they work", async () => {
    let http: HttpOrderServer = await startHttpOrderServer();
    cleanups.push(() => http.close());
    const servers = await McpServers.start([httpOrderServerConfig(http.url)]);
    cleanups.push(() => servers.close());
    const lookup = toolNamed(servers, "orders__lookup_order");
    expect(await lookup.invoke({ orderId: "B-2" }, runConfig("h1"))).toContain("Order B-2: shipped");
    expect(http.seen.at(-1)?.headers).toMatchObject({
      "x-switchboard-request-id": "req-123",
      "x-switchboard-run-id": "run-9",
      "x-switchboard-conversation": "test:general:root-a",
      "idempotency-key": "run-9:h1",
    });
    await http.close();
    await expect(lookup.invoke({ orderId: "B-2" }, runConfig("h2"))).rejects.toThrow(
      /tool server "orders" is unavailable/,
    );
    http = await startHttpOrderServer(http.port);
    await waitFor("the server to reconnect", () => servers.states()[0]?.status === "connected", 10_000);
    expect(await lookup.invoke({ orderId: "B-3" }, runConfig("h3"))).toContain("Order B-3: shipped");
  });

  it("a server that cannot start is down with its reason, never fatal, and keeps retrying", async () => {
    const servers = await McpServers.start([
      httpOrderServerConfig("http://127.0.0.1:1/mcp", { connectTimeoutSeconds: 2 }),
    ]);
    cleanups.push(() => servers.close());
    const [state] = servers.states();
    expect(state).toMatchObject({ name: "orders", status: "down", tools: 0, failedAttempts: 1 });
    expect(state?.lastError).toMatch(/fetch failed|ECONNREFUSED/i);
    await waitFor("another attempt", () => (servers.states()[0]?.failedAttempts ?? 0) >= 2, 5_000);
    // Agents may still list its tools: a placeholder answers that the server is down.
    const placeholder = servers.placeholder("orders__lookup_order");
    expect(placeholder?.tool.description).toMatch(/not connected yet/);
    await expect(placeholder?.tool.invoke({ orderId: "A-1" })).rejects.toThrow(/unavailable/);
    expect(servers.placeholder("other__lookup_order")).toBeUndefined();
  });
});
