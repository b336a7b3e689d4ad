import { describe, expect, it } from "vitest";
import { memoryConfigSchema } from "./memory-config.ts";

describe("memoryConfigSchema", () => {
  it("fills every default", () => {
    expect(memoryConfigSchema.parse({})).toEqual({
      enabled: true,
      flushEvery: 6,
      idleMinutes: 30,
      historyTokenBudget: 8_000,
      scope: "conversation",
      recentEntries: 10,
      summariesInPrompt: 5,
      learnings: {
        enabled: true,
        scopes: ["user", "conversation", "place"],
        tokenBudget: 500,
        maxPerSubject: 50,
      },
    });
  });

  it.each([
    [{ flushEvery: 0 }, "flushEvery"],
    [{ idleMinutes: -1 }, "idleMinutes"],
    [{ scope: "everyone" }, "scope"],
    [{ historyTokenBudget: 10 }, "historyTokenBudget"],
    [{ summaryModel: "" }, "summaryModel"],
    [{ flushEvry: 3 }, "flushEvry"],
    [{ learnings: { scopes: ["everyone"] } }, "scopes"],
    [{ learnings: { scopes: [] } }, "scopes"],
  ])("rejects %j, naming %s", (input, path) => {
    const result = memoryConfigSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain(path);
  });

  it("keeps a summary model and user scope", () => {
    expect(memoryConfigSchema.parse({ summaryModel: "openai:gpt-4o-mini", scope: "user" })).toMatchObject({
      summaryModel: "openai:gpt-4o-mini",
      scope: "user",
    });
  });
});
