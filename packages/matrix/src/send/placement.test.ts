import { describe, expect, it } from "vitest";
import { choosePlacement, needsReplyToThread, relationFor } from "./placement.ts";

const thread = { roomId: "!r:hs", threadRoot: "$root" };
const dm = { roomId: "!r:hs" };

describe("choosePlacement", () => {
  it.each([
    [
      "thread mode answers in the conversation's thread",
      { place: thread, replyTo: "$q", replyMode: "thread" },
      { kind: "thread", root: "$root", inReplyTo: "$q" },
    ],
    [
      "thread mode with nothing to reply to still threads",
      { place: thread, replyMode: "thread" },
      { kind: "thread", root: "$root", inReplyTo: "$root" },
    ],
    [
      "reply mode replies to the question",
      { place: thread, replyTo: "$q", replyMode: "reply" },
      { kind: "reply", inReplyTo: "$q" },
    ],
    [
      "reply mode follows a question asked in a thread",
      { place: thread, replyTo: "$q", replyToThread: "$t", replyMode: "reply" },
      { kind: "thread", root: "$t", inReplyTo: "$q" },
    ],
    [
      "a DM answer replies to the question",
      { place: dm, replyTo: "$q", replyMode: "thread" },
      { kind: "reply", inReplyTo: "$q" },
    ],
    [
      "a DM question asked in a thread is answered there",
      { place: dm, replyTo: "$q", replyToThread: "$t", replyMode: "thread" },
      { kind: "thread", root: "$t", inReplyTo: "$q" },
    ],
    ["a DM message with nothing to reply to is plain", { place: dm, replyMode: "thread" }, { kind: "plain" }],
  ] as const)("%s", (_name, facts, placement) => {
    expect(choosePlacement(facts)).toEqual(placement);
  });
});

describe("needsReplyToThread", () => {
  it.each([
    [thread, "thread", false],
    [thread, "reply", true],
    [dm, "thread", true],
  ] as const)("%j in %s mode → %s", (place, mode, expected) => {
    expect(needsReplyToThread(place, mode)).toBe(expected);
  });
});

describe("relationFor", () => {
  it("builds a thread relation with a falling-back reply to the origin", () => {
    expect(relationFor({ kind: "thread", root: "$root", inReplyTo: "$q" })).toEqual({
      rel_type: "m.thread",
      event_id: "$root",
      is_falling_back: true,
      "m.in_reply_to": { event_id: "$q" },
    });
  });

  it("builds a plain reply, and nothing for a plain message", () => {
    expect(relationFor({ kind: "reply", inReplyTo: "$q" })).toEqual({ "m.in_reply_to": { event_id: "$q" } });
    expect(relationFor({ kind: "plain" })).toBeUndefined();
  });
});
