import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { type McpServerConfig, McpServers, openStore, type Store } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HttpOrderServer, startHttpOrderServer } from "./support/mcp/http-order-server.ts";
import { httpOrderServerConfig, stdioOrderServer } from "./support/mcp/order-servers.ts";
import { startTrackingHarness } from "./support/tracking-harness.ts";

const conversation = { platform: "test", path: ["general", "root-a"] };
const ana = { id: "ana", isBot: false, isSelf: false };

/** The model's answer quotes the last tool result, so a reply shows what the real server said. */
const quoteToolResult = (messages: BaseMessage[]) => {
  const result = messages.findLast((message) => ToolMessage.isInstance(message));
  return new AIMessage(`From the order desk: ${String(result?.content)}`);
};

describe("MCP tools in the team (real MCP servers)", () => {
  let store: Store;
  const cleanups: (() => Promise<unknown>)[] = [];
  beforeEach(async () => {
    store = await openStore("memory://");
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await store.close();
  });

  const harnessWith = async (
    servers: McpServers,
    model: ReturnType<typeof fakeModel>,
    supervisorTools: string[],
  ) => {
    const h = await startTrackingHarness({
      store,
      model,
      catalog: [],
      toolSources: [servers],
      supervisorTools,
      admins: ["admin-1"],
    });
    cleanups.push(() => h.stop());
    return h;
  };

  it.each(["stdio", "http"] as const)(
    "%s: find_tools attaches a server's tool; the follow-up run calls it and answers the origin message",
    async (transport) => {
      let http: HttpOrderServer | undefined;
      let config: McpServerConfig;
      if (transport === "stdio") {
        const stdio = await stdioOrderServer();
        cleanups.push(stdio.cleanup);
        config = stdio.config;
      } else {
        http = await startHttpOrderServer();
        cleanups.push(() => http?.close() ?? Promise.resolve());
        config = httpOrderServerConfig(http.url);
      }
      const servers = await McpServers.start([config]);
      cleanups.push(() => servers.close());
      const model = fakeModel()
        .respondWithTools([{ name: "find_tools", args: { query: "order shipping status" }, id: "f1" }])
        .respondWithTools([{ name: "orders__lookup_order", args: { orderId: "A-17" }, id: "c2" }])
        .respond(quoteToolResult);
      const h = await harnessWith(servers, model, ["find_tools"]);

      const origin = await h.adapter.send("where is my order A-17?", { conversation, author: ana });
      await waitFor("the follow-up answer", () => h.adapter.posts.length === 1, 15_000);
      await h.engine.idle();

      expect(h.adapter.posts[0]).toMatchObject({
        text: "From the order desk: Order A-17: shipped on 2026-11-20, arriving Friday.",
        replyTo: origin.id,
        conversation,
      });
      const request = await h.tracking.tracker.byOrigin(origin.id);
      expect(request?.status).toBe("completed");
      expect(request?.runs.map((run) => run.triggeredBy)).toEqual(["user_message", "tools_attached"]);
      if (http) {
        const followUp = request?.runs[1]?.runId;
        expect(http.seen.at(-1)?.headers).toMatchObject({
          "x-switchboard-request-id": request?.id,
          "x-switchboard-run-id": followUp,
          "x-switchboard-conversation": "test:general:root-a",
          "idempotency-key": `${followUp}:c2`,
        });
        expect(http.seen.at(-1)?.meta).toMatchObject({ "switchboard/requestId": request?.id });
      }
    },
  );

  it("a tool marked requiresApproval waits for /approve, then runs and answers the origin message", async () => {
    const http = await startHttpOrderServer();
    cleanups.push(() => http.close());
    const servers = await McpServers.start([
      httpOrderServerConfig(http.url, { requiresApproval: ["refund_*"] }),
    ]);
    cleanups.push(() => servers.close());
    const model = fakeModel()
      .respondWithTools([{ name: "orders__refund_payment", args: { orderId: "A-17", amount: 40 }, id: "r1" }])
      .respond(quoteToolResult);
    const h = await harnessWith(servers, model, ["orders__refund_payment"]);

    const origin = await h.adapter.send("refund order A-17, 40 EUR", { conversation, author: ana });
    await h.engine.idle();
    expect(h.adapter.posts.at(-1)?.text).toMatch(/wants to run `orders__refund_payment`.*\/approve/s);
    expect(http.seen.filter((call) => call.tool === "refund_payment")).toEqual([]);

    await h.adapter.send("/approve", { conversation, author: ana });
    await h.engine.idle();
    expect(http.seen.filter((call) => call.tool === "refund_payment").map((call) => call.args)).toEqual([
      { orderId: "A-17", amount: 40 },
    ]);
    expect(h.adapter.posts.at(-1)).toMatchObject({
      text: "From the order desk: Refunded 40 EUR for order A-17.",
      replyTo: origin.id,
    });
    const request = await h.tracking.tracker.byOrigin(origin.id);
    expect(request?.runs.map((run) => [run.triggeredBy, run.status])).toEqual([
      ["user_message", "interrupted"],
      ["approval", "completed"],
    ]);
  });

  it("a server killed mid-session gives a clear tool result, not a failed turn; after it reconnects the tool works", async () => {
    const stdio = await stdioOrderServer();
    cleanups.push(stdio.cleanup);
    const servers = await McpServers.start([stdio.config]);
    cleanups.push(() => servers.close());
    const lookup = (id: string, orderId: string) => [{ name: "orders__lookup_order", args: { orderId }, id }];
    const model = fakeModel()
      .respondWithTools(lookup("k1", "A-1"))
      .respond(quoteToolResult)
      .respondWithTools(lookup("k2", "A-2"))
      .respond(quoteToolResult)
      .respondWithTools(lookup("k3", "A-3"))
      .respond(quoteToolResult);
    // Listed statically in the agent's tools, not found at run time.
    const h = await harnessWith(servers, model, ["orders__lookup_order"]);

    await h.adapter.send("order A-1?", { conversation, author: ana });
    await h.engine.idle();
    expect(h.adapter.posts.at(-1)?.text).toContain("Order A-1: shipped");

    await stdio.refuse();
    await stdio.kill();
    await waitFor("the server to be seen down", () => servers.states()[0]?.status === "down");
    const second = await h.adapter.send("order A-2?", { conversation, author: ana });
    await h.engine.idle();
    expect(h.adapter.posts.at(-1)).toMatchObject({ replyTo: second.id });
    expect(h.adapter.posts.at(-1)?.text).toMatch(
      /^From the order desk: Error: the tool server "orders" is unavailable \(.+\); Switchboard is reconnecting/,
    );
    expect((await h.tracking.tracker.byOrigin(second.id))?.status).toBe("completed");

    await stdio.allow();
    await waitFor("the server to reconnect", () => servers.states()[0]?.status === "connected", 10_000);
    await h.adapter.send("order A-3?", { conversation, author: ana });
    await h.engine.idle();
    expect(h.adapter.posts.at(-1)?.text).toContain("Order A-3: shipped");
  });
});
