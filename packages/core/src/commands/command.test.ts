import { describe, expect, it } from "vitest";
import { parseCommand } from "./command.ts";

describe("parseCommand", () => {
  it.each([
    ["/reset", { name: "reset", args: "" }],
    ["  /Supervisor show me my invoices ", { name: "supervisor", args: "show me my invoices" }],
    ["!status", { name: "status", args: "" }],
    ["/supervisor line one\nline two", { name: "supervisor", args: "line one\nline two" }],
    ["hello /reset", null],
    ["/", null],
    ["/ reset", null],
    ["/123", null],
    ["//reset", null],
    ["reset", null],
  ])("%j → %j", (text, expected) => {
    expect(parseCommand(text, ["/", "!"])).toEqual(expected);
  });

  it("only honours the configured prefixes", () => {
    expect(parseCommand("!reset", ["/"])).toBeNull();
    expect(parseCommand("sb:reset", ["sb:"])).toEqual({ name: "reset", args: "" });
  });
});
