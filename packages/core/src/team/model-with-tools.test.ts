import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { modelWithTools } from "./model-with-tools.ts";

const lookUp = (name: string) =>
  tool(async () => "ok", { name, description: `look up ${name}`, schema: z.object({ id: z.string() }) });

describe("modelWithTools", () => {
  it("binds an agent's own tools once, and binds again whenever tools are attached", () => {
    const model = fakeModel();
    const bindTools = vi.spyOn(model, "bindTools");
    const agent = { name: "billing", model, tools: [lookUp("invoice")] };
    const first = modelWithTools(agent, []);
    expect(modelWithTools(agent, [])).toBe(first);
    expect(bindTools).toHaveBeenCalledTimes(1);
    const attached = modelWithTools(agent, [lookUp("refund")]);
    expect(attached).not.toBe(first);
    expect(bindTools).toHaveBeenCalledTimes(2);
    expect(bindTools.mock.calls[1]?.[0].map((bound) => ("name" in bound ? bound.name : ""))).toEqual([
      "invoice",
      "refund",
    ]);
    // Another agent on the same model has its own binding.
    modelWithTools({ name: "support", model, tools: [lookUp("ticket")] }, []);
    expect(bindTools).toHaveBeenCalledTimes(3);
  });

  it("uses the model as it is for an agent without tools", () => {
    const model = fakeModel();
    expect(modelWithTools({ name: "plain", model, tools: [] }, [])).toBe(model);
  });
});
