import { encodeConversationKey } from "@switchboard/core/adapter";
import { describe, expect, it } from "vitest";
import { mapRoomMessage } from "./map-message.ts";
import type { MatrixEvent } from "./matrix-event.ts";

const bot = { userId: "@bot:hs", displayName: "Switchboard" };
const group = { roomId: "!group:hs", isDirect: false };
const dm = { roomId: "!dm:hs", isDirect: true };

function event(content: Record<string, unknown>, overrides: Partial<MatrixEvent> = {}): MatrixEvent {
  return {
    event_id: "$e1",
    type: "m.room.message",
    sender: "@alice:hs",
    origin_server_ts: 1000,
    content,
    ...overrides,
  };
}

const thread = (root: string, inReplyTo = "$latest", isFallingBack = true) => ({
  "m.relates_to": {
    rel_type: "m.thread",
    event_id: root,
    is_falling_back: isFallingBack,
    "m.in_reply_to": { event_id: inReplyTo },
  },
});

describe("mapRoomMessage: conversations", () => {
  it.each([
    [
      "a top-level message in a group room roots its own conversation",
      group,
      { body: "hi", msgtype: "m.text" },
      "matrix:!group%3Ahs:$e1",
      undefined,
    ],
    [
      "a thread message belongs to its root",
      group,
      { body: "hi", msgtype: "m.text", ...thread("$root") },
      "matrix:!group%3Ahs:$root",
      undefined,
    ],
    [
      "a reply outside a thread reports replyTo",
      group,
      { body: "hi", msgtype: "m.text", "m.relates_to": { "m.in_reply_to": { event_id: "$bot1" } } },
      "matrix:!group%3Ahs:$e1",
      "$bot1",
    ],
    [
      "a falling-back in_reply_to in a thread is no reply",
      group,
      { body: "hi", msgtype: "m.text", ...thread("$root", "$latest", true) },
      "matrix:!group%3Ahs:$root",
      undefined,
    ],
    [
      "a real reply inside a thread reports replyTo",
      group,
      { body: "hi", msgtype: "m.text", ...thread("$root", "$bot2", false) },
      "matrix:!group%3Ahs:$root",
      "$bot2",
    ],
    ["a DM room is one conversation", dm, { body: "hi", msgtype: "m.text" }, "matrix:!dm%3Ahs", undefined],
    [
      "a thread in a DM room is still the DM's conversation",
      dm,
      { body: "hi", msgtype: "m.text", ...thread("$root") },
      "matrix:!dm%3Ahs",
      undefined,
    ],
  ])("%s", (_name, room, content, key, replyTo) => {
    const mapped = mapRoomMessage(event(content), room, bot);
    if (mapped.kind !== "message") throw new Error(`skipped: ${mapped.reason}`);
    expect(encodeConversationKey(mapped.message.conversation)).toBe(key);
    expect(mapped.message.replyTo).toBe(replyTo);
    expect(mapped.message.isDirect).toBe(room.isDirect);
  });
});

describe("mapRoomMessage: facts", () => {
  it("marks edits, with the edited text", () => {
    const mapped = mapRoomMessage(
      event({
        msgtype: "m.text",
        body: "* fixed",
        "m.new_content": { msgtype: "m.text", body: "fixed" },
        "m.relates_to": { rel_type: "m.replace", event_id: "$old" },
      }),
      group,
      bot,
    );
    expect(mapped).toMatchObject({ kind: "message", message: { isEdit: true, text: "fixed" } });
  });

  it.each([
    [
      "our own message",
      { sender: "@bot:hs" },
      { msgtype: "m.text", body: "x" },
      { isSelf: true, isBot: true },
    ],
    ["a notice from another bot", {}, { msgtype: "m.notice", body: "x" }, { isSelf: false, isBot: true }],
    ["a user's text", {}, { msgtype: "m.text", body: "x" }, { isSelf: false, isBot: false }],
  ])("author of %s", (_name, overrides, content, author) => {
    const mapped = mapRoomMessage(event(content, overrides), group, bot);
    expect(mapped).toMatchObject({ kind: "message", message: { author } });
  });

  it("reports a mention and strips the leading address so commands parse", () => {
    const mapped = mapRoomMessage(
      event({ msgtype: "m.text", body: "Switchboard: !reset", "m.mentions": { user_ids: ["@bot:hs"] } }),
      group,
      bot,
    );
    expect(mapped).toMatchObject({
      kind: "message",
      message: { mentionsBot: true, text: "!reset", sentAt: 1000 },
    });
  });

  it("drops the quoted fallback of a reply", () => {
    const mapped = mapRoomMessage(
      event({
        msgtype: "m.text",
        body: "> <@bot:hs> earlier answer\n\nwhy?",
        "m.relates_to": { "m.in_reply_to": { event_id: "$b" } },
      }),
      group,
      bot,
    );
    expect(mapped).toMatchObject({ kind: "message", message: { text: "why?", replyTo: "$b" } });
  });

  it("remembers the thread a message came from", () => {
    expect(
      mapRoomMessage(event({ msgtype: "m.text", body: "x", ...thread("$root") }), dm, bot),
    ).toMatchObject({ threadRoot: "$root" });
  });

  it("maps a file message to its attachment, its caption as the text", () => {
    const content = { msgtype: "m.image", body: "what is this?", filename: "cat.png", url: "mxc://hs/cat" };
    expect(mapRoomMessage(event(content), dm, bot)).toMatchObject({
      kind: "message",
      message: { text: "what is this?", attachments: [{ name: "cat.png", ref: { url: "mxc://hs/cat" } }] },
    });
  });

  it.each([
    [
      "an image with no mxc:// file",
      { msgtype: "m.image", body: "cat.png" },
      "m.image without an mxc:// file",
    ],
    ["a location", { msgtype: "m.location", body: "here", geo_uri: "geo:1,2" }, "not text (m.location)"],
    ["a redacted message", {}, "no msgtype (redacted?)"],
    ["a message without body", { msgtype: "m.text" }, "no body"],
  ])("skips %s", (_name, content, reason) => {
    expect(mapRoomMessage(event(content), group, bot)).toEqual({ kind: "skip", reason });
  });
});
