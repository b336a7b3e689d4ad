import { describe, expect, it } from "vitest";
import { DiscordStartupError, explainStartupError, type StartupFailure } from "./startup-errors.ts";

const withFields = (message: string, fields: Record<string, unknown>) =>
  Object.assign(new Error(message), fields);
const apiUrl = "https://discord.com/api";

describe("explainStartupError", () => {
  it.each<[string, unknown, number | undefined, StartupFailure, RegExp]>([
    [
      "discord.js TokenInvalid (401 on /gateway/bot)",
      withFields("An invalid token was provided.", { code: "TokenInvalid" }),
      undefined,
      "invalid-token",
      /Reset Token/,
    ],
    ["a REST 401", withFields("401: Unauthorized", { status: 401 }), undefined, "invalid-token", /HTTP 401/],
    ["gateway close 4004", new Error("Authentication failed"), undefined, "invalid-token", /4004/],
    [
      "gateway close 4014",
      new Error("Used disallowed intents"),
      undefined,
      "disallowed-intents",
      /MESSAGE CONTENT INTENT/,
    ],
    [
      "a close code seen on the shard wins",
      new Error("something generic"),
      4014,
      "disallowed-intents",
      /4014/,
    ],
    ["gateway close 4013", new Error("Used invalid intents"), undefined, "invalid-intents", /4013/],
    [
      "connection refused",
      withFields("fetch failed", { cause: { code: "ECONNREFUSED" } }),
      undefined,
      "unreachable",
      /Could not reach Discord at https:\/\/discord.com\/api: fetch failed/,
    ],
    ["anything else", new Error("boom"), undefined, "unknown", /Could not connect to Discord at .*: boom/],
  ])("%s", (_, error, closeCode, failure, message) => {
    const explained = explainStartupError(error, {
      apiUrl,
      ...(closeCode === undefined ? {} : { closeCode }),
    });
    expect(explained).toBeInstanceOf(DiscordStartupError);
    expect(explained.failure).toBe(failure);
    expect(explained.message).toMatch(message);
    expect(explained.cause).toBe(error);
  });
});
