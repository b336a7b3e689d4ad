import { describe, expect, it } from "vitest";
import { mediaContent, parseMxc } from "./media-message.ts";

const URL = "mxc://example.org/abc123";

describe("a Matrix media message", () => {
  it.each([
    ["a file named by its body", "m.file", { body: "report.pdf", url: URL }, "report.pdf", ""],
    [
      "a captioned image (filename differs from body)",
      "m.image",
      { body: "what is this?", filename: "shot.png", url: URL },
      "shot.png",
      "what is this?",
    ],
    [
      "filename equal to body: no caption",
      "m.video",
      { body: "a.mp4", filename: "a.mp4", url: URL },
      "a.mp4",
      "",
    ],
    ["no body at all", "m.audio", { url: URL }, "audio", ""],
  ])("%s", (_, msgtype, content, name, caption) => {
    const media = mediaContent(msgtype, content);
    expect(media).toMatchObject({ kind: "file", caption, attachment: { name, ref: { url: URL } } });
  });

  it("carries the declared type and size, a voice note's mark, and an encrypted file's description", () => {
    const file = { v: "v2", url: URL, key: {}, iv: "x", hashes: {} };
    expect(
      mediaContent("m.audio", {
        body: "Voice message.ogg",
        file,
        info: { mimetype: "audio/ogg", size: 1234 },
        "org.matrix.msc3245.voice": {},
      }),
    ).toEqual({
      kind: "file",
      caption: "",
      attachment: {
        name: "Voice message.ogg",
        declaredType: "audio/ogg",
        declaredSize: 1234,
        voice: true,
        ref: { file },
      },
    });
  });

  it.each([
    ["an http URL", { body: "x.png", url: "https://evil.example/x.png" }],
    ["an mxc with a path", { body: "x.png", url: "mxc://example.org/a/../b" }],
    ["no URL", { body: "x.png" }],
    ["an encrypted file without a URL", { body: "x.png", file: { v: "v2" } }],
  ])("is not followed with %s", (_, content) => {
    expect(mediaContent("m.image", content).kind).toBe("skip");
  });

  it("reads mxc URIs strictly", () => {
    expect(parseMxc("mxc://matrix.org:8448/AbC_d-1")).toEqual({
      server: "matrix.org:8448",
      mediaId: "AbC_d-1",
    });
    expect(parseMxc("mxc://matrix.org/")).toBeUndefined();
    expect(parseMxc("mxc://matrix.org/a b")).toBeUndefined();
  });
});
