import { describe, expect, it } from "vitest";
import { decodeConversationKey, encodeConversationKey, InvalidConversationKeyError } from "./ref.ts";

describe("conversation keys", () => {
  it.each([
    [{ platform: "slack", path: ["T1", "C2", "1700000000.000100"] }, "slack:T1:C2:1700000000.000100"],
    [{ platform: "discord", path: ["G1", "C2", "T3"] }, "discord:G1:C2:T3"],
    [{ platform: "matrix", path: ["!room:hs", "$root"] }, "matrix:!room%3Ahs:$root"],
    [{ platform: "console", path: ["main"] }, "console:main"],
    [{ platform: "x", path: ["100%", ""] }, "x:100%25:"],
  ])("encodes %j as %s and back", (ref, key) => {
    expect(encodeConversationKey(ref)).toBe(key);
    expect(decodeConversationKey(key)).toEqual(ref);
  });

  it("round-trips odd ids made of separators, escapes and unicode", () => {
    const alphabet = [":", "%", "3", "A", "a", "%3A", "%25", "$", "!", "é", "🙂", " ", ""];
    let seed = 42;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 2000; i++) {
      const path = Array.from({ length: 1 + (next() % 4) }, () =>
        Array.from({ length: next() % 6 }, () => alphabet[next() % alphabet.length]).join(""),
      );
      const ref = { platform: "p", path };
      expect(decodeConversationKey(encodeConversationKey(ref))).toEqual(ref);
    }
  });

  it.each(["", "slack", "Slack:T1", "slack:bad%zz", ":x"])("rejects %j", (key) => {
    expect(() => decodeConversationKey(key)).toThrow(InvalidConversationKeyError);
  });

  it("rejects a platform name that could not be decoded", () => {
    expect(() => encodeConversationKey({ platform: "a:b", path: ["x"] })).toThrow(
      InvalidConversationKeyError,
    );
    expect(() => encodeConversationKey({ platform: "a", path: [] })).toThrow(InvalidConversationKeyError);
  });
});
