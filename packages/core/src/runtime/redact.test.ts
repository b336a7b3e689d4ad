import { describe, expect, it } from "vitest";
import { SecretRedactor } from "./redact.ts";

describe("SecretRedactor", () => {
  const redactor = new SecretRedactor(["configured-secret-value", "abc"]);
  it.each([
    ["token configured-secret-value here", "token [redacted] here"],
    ["redis://user:p4ss@host:6379/0", "redis://user:[redacted]@host:6379/0"],
    ["Authorization: Bearer abcdefghijklmnop", "Authorization: Bearer [redacted]"],
    ["slack xoxb-1234-5678-abcdefgh", "slack [redacted]"],
    ["key sk-abcdefghijklmnopqrstuv", "key [redacted]"],
    // Too short to search for: it would match ordinary words.
    ["abc is fine", "abc is fine"],
  ])("%s → %s", (input, output) => {
    expect(redactor.text(input)).toBe(output);
  });

  it("blanks fields named like secrets and keeps JSON lines parseable", () => {
    expect(redactor.value({ apiKey: "x", nested: { password: "y", note: "ok" } })).toEqual({
      apiKey: "[redacted]",
      nested: { password: "[redacted]", note: "ok" },
    });
    const line = JSON.stringify({ url: "postgres://u:secret@db/x", msg: "configured-secret-value" });
    expect(JSON.parse(redactor.text(line))).toEqual({
      url: "postgres://u:[redacted]@db/x",
      msg: "[redacted]",
    });
  });
});
