import { describe, expect, it } from "vitest";
import { parseConsoleLine } from "./console-line.ts";

describe("parseConsoleLine", () => {
  it.each([
    ["hello", { kind: "say", text: "hello" }],
    ["/reset", { kind: "say", text: "/reset" }],
    ["::not a command", { kind: "say", text: ":not a command" }],
    [":new", { kind: "new-thread" }],
    [":new billing-q", { kind: "new-thread", name: "billing-q" }],
    [":switch #general", { kind: "switch", place: "#general" }],
    [":threads", { kind: "list" }],
    [":reply c-12 what about it", { kind: "reply", to: "c-12", text: "what about it" }],
    [":quit", { kind: "quit" }],
  ])("%j → %j", (line, action) => {
    expect(parseConsoleLine(line)).toEqual(action);
  });

  it.each([":switch", ":reply c-1", ":new bad name!", ":frobnicate"])("%j is explained, not sent", (line) => {
    expect(parseConsoleLine(line).kind).toBe("invalid");
  });
});
