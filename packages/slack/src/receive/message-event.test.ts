import { encodeConversationKey, type InboundMessage } from "@switchboard/core/adapter";
import { describe, expect, it } from "vitest";
import { type EventKind, mapMessageEvent, type ReceiveSettings } from "./message-event.ts";

const settings: ReceiveSettings = {
  botUserId: "U0BOT",
  botId: "B0BOT",
  botName: "switchboard",
  commandWords: ["help", "reset"],
  channels: [],
  directMessages: true,
  dmConversations: "per-dm",
};

const TEAM = "T01";
const inChannel = (extra: Record<string, unknown>) => ({
  type: "message",
  channel: "C01",
  channel_type: "channel",
  user: "U0ALICE",
  text: "hi",
  ts: "1700000000.000100",
  ...extra,
});
const inDm = (extra: Record<string, unknown>) => ({
  ...inChannel({}),
  channel: "D01",
  channel_type: "im",
  ...extra,
});

interface Case {
  readonly name: string;
  readonly kind?: EventKind;
  readonly event: unknown;
  readonly settings?: Partial<ReceiveSettings>;
  /** null: not handed to the engine at all. */
  readonly expected: null | (Partial<Omit<InboundMessage, "conversation">> & { key?: string });
}

const cases: Case[] = [
  {
    name: "top-level mention in a channel starts a thread named by its own ts",
    kind: "app_mention",
    event: {
      type: "app_mention",
      channel: "C01",
      user: "U0ALICE",
      text: "<@U0BOT> hello",
      ts: "1700000000.000100",
    },
    expected: {
      id: "C01:1700000000.000100",
      key: "slack:T01:C01:1700000000.000100",
      text: "hello",
      mentionsBot: true,
      isDirect: false,
      isEdit: false,
    },
  },
  {
    name: "the same message as a plain message event has the same id and conversation",
    event: inChannel({ text: "<@U0BOT> hello" }),
    expected: {
      id: "C01:1700000000.000100",
      key: "slack:T01:C01:1700000000.000100",
      text: "hello",
      mentionsBot: true,
    },
  },
  {
    name: "a thread reply without a mention joins the thread's conversation",
    event: inChannel({ text: "and more", ts: "1700000000.000300", thread_ts: "1700000000.000100" }),
    expected: {
      id: "C01:1700000000.000300",
      key: "slack:T01:C01:1700000000.000100",
      mentionsBot: false,
      isDirect: false,
    },
  },
  {
    name: "a mention inside a thread keeps the thread",
    kind: "app_mention",
    event: {
      type: "app_mention",
      channel: "C01",
      user: "U0ALICE",
      text: "<@U0BOT> reset",
      ts: "1700000000.000500",
      thread_ts: "1700000000.000100",
    },
    expected: { key: "slack:T01:C01:1700000000.000100", text: "/reset" },
  },
  {
    name: "a top-level DM is the DM's conversation (per-dm)",
    event: inDm({ text: "private question" }),
    expected: {
      id: "D01:1700000000.000100",
      key: "slack:T01:D01",
      isDirect: true,
      mentionsBot: false,
      text: "private question",
    },
  },
  {
    name: "a top-level DM starts its own thread (per-thread)",
    event: inDm({}),
    settings: { dmConversations: "per-thread" },
    expected: { key: "slack:T01:D01:1700000000.000100", isDirect: true },
  },
  {
    name: "a DM thread reply is the thread's conversation whatever the DM setting",
    event: inDm({ ts: "1700000000.000900", thread_ts: "1700000000.000100" }),
    expected: { key: "slack:T01:D01:1700000000.000100", isDirect: true },
  },
  {
    name: "an edit is reported as an edit of the original message",
    event: inChannel({
      subtype: "message_changed",
      ts: "1700000001.000000",
      message: { user: "U0ALICE", text: "<@U0BOT> edited", ts: "1700000000.000100" },
    }),
    expected: { id: "C01:1700000000.000100", isEdit: true, text: "edited", mentionsBot: true },
  },
  {
    name: "our own message is reported as self",
    event: inChannel({ user: "U0BOT", bot_id: "B0BOT", thread_ts: "1700000000.000050" }),
    expected: { author: { id: "U0BOT", isBot: true, isSelf: true } },
  },
  {
    name: "another app's message is reported as a bot",
    event: inChannel({ user: "U0OTHER", bot_id: "B0OTHER" }),
    expected: { author: { id: "U0OTHER", isBot: true, isSelf: false } },
  },
  {
    name: "a legacy bot_message without a user is a bot",
    event: inChannel({ subtype: "bot_message", user: undefined, bot_id: "B0LEGACY" }),
    expected: { author: { id: "B0LEGACY", isBot: true, isSelf: false } },
  },
  { name: "a deletion is not a message", event: inChannel({ subtype: "message_deleted" }), expected: null },
  { name: "a channel join is not a message", event: inChannel({ subtype: "channel_join" }), expected: null },
  { name: "an event without ts is not a message", event: inChannel({ ts: undefined }), expected: null },
  {
    name: "a channel outside the allowlist is not served",
    event: inChannel({}),
    settings: { channels: ["C99"] },
    expected: null,
  },
  {
    name: "a channel in the allowlist is served",
    event: inChannel({}),
    settings: { channels: ["C01"] },
    expected: { id: "C01:1700000000.000100" },
  },
  {
    name: "the allowlist does not apply to DMs",
    event: inDm({}),
    settings: { channels: ["C99"] },
    expected: { isDirect: true },
  },
  {
    name: "DMs switched off are not served",
    event: inDm({}),
    settings: { directMessages: false },
    expected: null,
  },
  {
    name: "a file share with a caption is a message",
    event: inChannel({ subtype: "file_share", text: "look at this" }),
    expected: { text: "look at this", sentAt: 1_700_000_000_000 },
  },
];

describe("mapMessageEvent", () => {
  for (const { name, kind, event, settings: overrides, expected } of cases) {
    it(name, () => {
      const mapped = mapMessageEvent(kind ?? "message", event, TEAM, { ...settings, ...overrides });
      if (expected === null) {
        expect(mapped).toBeNull();
        return;
      }
      expect(mapped).not.toBeNull();
      const { key, ...fields } = expected;
      if (key) expect(mapped && encodeConversationKey(mapped.conversation)).toBe(key);
      expect(mapped).toMatchObject(fields);
    });
  }
});
