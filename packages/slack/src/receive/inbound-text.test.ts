import { describe, expect, it } from "vitest";
import { readInboundText } from "./inbound-text.ts";

const bot = {
  botUserId: "U0BOT",
  botName: "switchboard",
  commandWords: ["help", "reset", "supervisor", "status"],
};

describe("readInboundText", () => {
  const cases: { name: string; raw: string; text: string; mentionsBot: boolean }[] = [
    { name: "plain text", raw: "hello there", text: "hello there", mentionsBot: false },
    { name: "leading mention dropped", raw: "<@U0BOT> hello there", text: "hello there", mentionsBot: true },
    {
      name: "leading mention with label and comma",
      raw: "<@U0BOT|switchboard>, hi",
      text: "hi",
      mentionsBot: true,
    },
    {
      name: "mention inside the text kept as a name",
      raw: "ask <@U0BOT> later",
      text: "ask @switchboard later",
      mentionsBot: true,
    },
    { name: "other user mention", raw: "<@U0BOT> ping <@U0ALICE>", text: "ping @U0ALICE", mentionsBot: true },
    {
      name: "other user mention with label",
      raw: "cc <@U0ALICE|alice>",
      text: "cc @alice",
      mentionsBot: false,
    },
    { name: "channel link", raw: "see <#C0GEN|general>", text: "see #general", mentionsBot: false },
    { name: "broadcast mention", raw: "<!here> look", text: "@here look", mentionsBot: false },
    { name: "user group", raw: "<!subteam^S1|@ops> help", text: "@ops help", mentionsBot: false },
    {
      name: "bare URL",
      raw: "<https://example.com/a?b=1&amp;c=2>",
      text: "https://example.com/a?b=1&c=2",
      mentionsBot: false,
    },
    {
      name: "labelled URL",
      raw: "<https://example.com|the docs>",
      text: "[the docs](https://example.com)",
      mentionsBot: false,
    },
    {
      name: "mailto",
      raw: "<mailto:a@example.com|a@example.com>",
      text: "a@example.com",
      mentionsBot: false,
    },
    {
      name: "entities decoded",
      raw: "1 &lt; 2 &amp;&amp; 3 &gt; 2",
      text: "1 < 2 && 3 > 2",
      mentionsBot: false,
    },
    {
      name: "command word after mention",
      raw: "<@U0BOT> supervisor show my invoices",
      text: "/supervisor show my invoices",
      mentionsBot: true,
    },
    { name: "command word alone, any case", raw: "<@U0BOT> Reset", text: "/reset", mentionsBot: true },
    {
      name: "unknown word stays a question",
      raw: "<@U0BOT> agents please",
      text: "agents please",
      mentionsBot: true,
    },
    {
      name: "command word without mention stays text",
      raw: "status of my order?",
      text: "status of my order?",
      mentionsBot: false,
    },
    {
      name: "command word after a mid-text mention stays text",
      raw: "hey <@U0BOT> reset",
      text: "hey @switchboard reset",
      mentionsBot: true,
    },
  ];
  for (const { name, raw, text, mentionsBot } of cases) {
    it(name, () => {
      expect(readInboundText(raw, bot)).toEqual({ text, mentionsBot });
    });
  }
});
