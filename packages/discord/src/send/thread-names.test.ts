import { describe, expect, it } from "vitest";
import { ThreadNames, threadNameFor, threadNameForFetched } from "./thread-names.ts";

describe("threadNameFor", () => {
  it.each([
    ["what is the weather today?", "what is the weather today?"],
    ["\n\n**Deploy** the `api`\nmore details here", "Deploy the api"],
    [
      "please summarise the quarterly report for the board and list every open risk we know about",
      "please summarise the quarterly report for the board and list…",
    ],
    ["x".repeat(150), `${"x".repeat(60)}…`],
    ["   ", "Conversation with Ada"],
  ])("%j → %j", (text, name) => {
    expect(threadNameFor(text, "Ada")).toBe(name);
    expect(threadNameFor(text, "Ada").length).toBeLessThanOrEqual(100);
  });
});

describe("threadNameForFetched (a question read over REST)", () => {
  it.each([
    ["<@123> how do I rotate the keys?", "how do I rotate the keys?"],
    ["<@!123> <@&456>  deploy **now**", "deploy now"],
    ["<@123>", "Conversation with Ada"],
  ])("%j → %j", (content, name) => {
    expect(threadNameForFetched(content, "Ada")).toBe(name);
  });
});

describe("ThreadNames", () => {
  it("remembers names by root and forgets the oldest past its bound", () => {
    const names = new ThreadNames();
    for (let i = 0; i < 1001; i++) names.remember(`root${i}`, `name${i}`);
    expect(names.nameFor("root1000")).toBe("name1000");
    expect(names.nameFor("root1")).toBe("name1");
    expect(names.nameFor("root0")).toBe("Conversation");
  });
});
