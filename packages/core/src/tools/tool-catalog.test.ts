import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openStore } from "../store/open-store.ts";
import { type CatalogEntry, ToolCatalog, type ToolSource } from "./tool-catalog.ts";

const named = (name: string, description: string) =>
  tool(async () => name, { name, description, schema: z.object({}) });

describe("ToolCatalog", () => {
  const entries = [
    { tool: named("weather", "weather forecast for a city"), requiresApproval: false },
    { tool: named("refund", "refund a payment to a customer"), requiresApproval: true },
    { tool: named("track_parcel", "track a parcel shipment"), requiresApproval: false },
  ];

  it.each([
    ["what's the forecast in Oslo", ["weather"]],
    ["refund the customer's payment", ["refund"]],
    ["where is my parcel?", ["track_parcel"]],
    ["sing me a song", []],
  ])("search %j → %j", async (query, names) => {
    const catalog = new ToolCatalog(entries, await openStore("memory://"));
    expect(catalog.search(query).map((entry) => entry.tool.name)).toEqual(names);
  });

  it("attaches per conversation and agent, and find_tools ends the run", async () => {
    const catalog = new ToolCatalog(entries, await openStore("memory://"));
    const findTools = catalog.findToolsTool();
    expect(findTools.returnDirect).toBe(true);
    const reply = await findTools.invoke(
      { query: "weather forecast" },
      { configurable: { thread_id: "c1", agent: "billing" } },
    );
    expect(reply).toContain("Attached: weather");
    expect((await catalog.attachedTools("c1", "billing")).map((t) => t.name)).toEqual(["weather"]);
    expect(await catalog.attachedTools("c2", "billing")).toEqual([]);
    expect(await catalog.attachedTools("c1", "supervisor")).toEqual([]);
    expect(catalog.needsApproval("refund")).toBe(true);
    expect(catalog.needsApproval("weather")).toBe(false);
  });

  it("matches parameter names too, and searches a source's current tools", async () => {
    const lookup = tool(async () => "ok", {
      name: "orders__lookup",
      description: "look something up",
      schema: { type: "object", properties: { invoiceNumber: { type: "string" } } },
    });
    let offered: CatalogEntry[] = [];
    const source: ToolSource = { entries: () => offered };
    const catalog = new ToolCatalog(entries, await openStore("memory://"), [source]);
    expect(catalog.search("invoice number")).toEqual([]);
    offered = [{ tool: lookup, requiresApproval: true }];
    expect(catalog.search("invoice number").map((entry) => entry.tool.name)).toEqual(["orders__lookup"]);
    expect(catalog.needsApproval("orders__lookup")).toBe(true);
  });

  it("gives agents a source's placeholder for a tool it does not list yet, and nothing for unknown names", async () => {
    const placeholder = named("files__read_file", "not connected yet");
    const source: ToolSource = {
      entries: () => [],
      placeholder: (name) =>
        name === "files__read_file" ? { tool: placeholder, requiresApproval: false } : undefined,
    };
    const catalog = new ToolCatalog(entries, await openStore("memory://"), [source]);
    const registry = catalog.registry(["files__read_file", "files__nope", "weather"]);
    expect(registry.files__read_file).toBe(placeholder);
    expect(registry.files__nope).toBeUndefined();
    expect(Object.keys(registry).sort()).toEqual([
      "files__read_file",
      "find_tools",
      "refund",
      "track_parcel",
      "weather",
    ]);
  });
});
