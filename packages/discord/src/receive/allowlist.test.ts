import { describe, expect, it } from "vitest";
import { type Allowlist, isAllowed } from "./allowlist.ts";
import type { ChannelLocation } from "./places.ts";

const open: Allowlist = { guildIds: [], channelIds: [], directMessages: true };
const channel: ChannelLocation = { kind: "channel", guildId: "1", channelId: "2" };
const thread: ChannelLocation = { kind: "thread", guildId: "1", parentId: "2", threadId: "3" };
const dm: ChannelLocation = { kind: "dm", channelId: "9" };

describe("isAllowed", () => {
  it.each<[string, Partial<Allowlist>, ChannelLocation, boolean]>([
    ["no lists: a channel", {}, channel, true],
    ["no lists: a DM", {}, dm, true],
    ["DMs switched off", { directMessages: false }, dm, false],
    ["guild listed", { guildIds: ["1"] }, channel, true],
    ["guild not listed", { guildIds: ["5"] }, channel, false],
    ["guild list does not affect DMs", { guildIds: ["5"] }, dm, true],
    ["channel listed", { channelIds: ["2"] }, channel, true],
    ["channel not listed", { channelIds: ["4"] }, channel, false],
    ["thread under a listed channel", { channelIds: ["2"] }, thread, true],
    ["thread itself listed", { channelIds: ["3"] }, thread, true],
    ["thread under an unlisted channel", { channelIds: ["4"] }, thread, false],
    ["channel listed but guild not", { guildIds: ["5"], channelIds: ["2"] }, channel, false],
  ])("%s", (_, change, location, expected) => {
    expect(isAllowed(location, { ...open, ...change })).toBe(expected);
  });
});
