import { describe, expect, it } from "vitest";
import { describePlace, formatAge } from "../views/format.ts";
import { type ConversationFilter, type FilterableRow, filterConversations } from "./conversations.ts";

const rows: FilterableRow[] = [
  {
    key: "slack:T1:C1:17.1",
    platform: "slack",
    place: "channel C1",
    agent: "billing",
    participants: ["Ana"],
    lastText: "refund please",
  },
  {
    key: "discord:G1:C2:T3",
    platform: "discord",
    place: "channel C2",
    agent: "supervisor",
    participants: ["Ben"],
    lastText: "hello",
  },
  {
    key: "web:s1:main",
    platform: "web",
    place: "thread main",
    agent: "billing",
    participants: ["console operator"],
    lastText: "",
  },
];

describe("filtering the conversations list", () => {
  it.each<[ConversationFilter, string[]]>([
    [{}, ["slack:T1:C1:17.1", "discord:G1:C2:T3", "web:s1:main"]],
    [{ platform: "discord" }, ["discord:G1:C2:T3"]],
    [{ agent: "billing" }, ["slack:T1:C1:17.1", "web:s1:main"]],
    [{ agent: "billing", platform: "web" }, ["web:s1:main"]],
    [{ text: "REFUND" }, ["slack:T1:C1:17.1"]],
    [{ text: "ben" }, ["discord:G1:C2:T3"]],
    [{ text: "  " }, ["slack:T1:C1:17.1", "discord:G1:C2:T3", "web:s1:main"]],
    [{ text: "nothing like this" }, []],
  ])("%j keeps %j", (filter, keys) => {
    expect(filterConversations(rows, filter).map((row) => row.key)).toEqual(keys);
  });
});

describe("naming places and ages", () => {
  it.each([
    ["slack:T1:C2:1700000000.000100", "slack", "workspace T1 · channel C2 · thread 1700000000.000100"],
    ["matrix:!room%3Ahs:$root", "matrix", "room !room:hs · thread $root"],
    ["web:abc:#general/w-1", "web", "session abc · thread #general/w-1"],
    ["newplatform:a:b", "newplatform", "part a · part b"],
    ["not a key", "?", "not a key"],
  ])("%s is %s · %s", (key, platform, place) => {
    expect(describePlace(key)).toEqual({ platform, place });
  });

  it.each([
    ["slack:T1:C2:1700000000.000100", { room: "#general" }, "#general · thread 1700000000.000100"],
    ["discord:G1:C2:T3", { room: "#support", thread: "Refund for 42" }, "#support · thread “Refund for 42”"],
    ["discord:G1:C2:T3", { thread: "Refund for 42" }, "server G1 · channel C2 · thread “Refund for 42”"],
    ["matrix:!room%3Ahs:$root", { room: "Support" }, "Support · thread $root"],
    ["matrix:!room%3Ahs", { room: "Support" }, "Support"],
    ["slack:T1:C2:1700000000.000100", {}, "workspace T1 · channel C2 · thread 1700000000.000100"],
  ])("%s with the names %j is %s", (key, names, place) => {
    expect(describePlace(key, names).place).toBe(place);
  });

  it.each([
    [0, "0s"],
    [59_400, "59s"],
    [61_000, "1m 1s"],
    [3 * 3_600_000 + 120_000, "3h 2m"],
    [50 * 3_600_000, "2d 2h"],
    [-5_000, "0s"],
  ])("%i ms reads %s", (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});
