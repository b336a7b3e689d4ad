import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openStore } from "../store/open-store.ts";
import { ToolCatalog } from "./tool-catalog.ts";

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
});
