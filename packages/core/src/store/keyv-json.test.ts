import { defaultDeserialize, defaultSerialize } from "@keyv/serialize";
import { describe, expect, it } from "vitest";
import { deserializeKeyvJson, serializeKeyvJson } from "./keyv-json.ts";

/** Values as keyv hands them to a serializer ({ value, expires }), including every case keyv escapes. */
const VALUES: Array<[string, unknown]> = [
  [
    "a record",
    {
      value: {
        id: "req-1",
        key: "slack:T1:C1:1.2",
        at: 1_700_000_000_000,
        agents: ["a", "b"],
        ok: true,
        none: null,
      },
      expires: 1,
    },
  ],
  ["a string value that starts with a colon", { value: ":tada: shipped", expires: undefined }],
  ["a nested one", { value: { lines: [{ text: "::double" }, { text: "plain: colon inside" }] } }],
  ["a key that starts with a colon", { value: { ":odd": 1, "a:b": 2 } }],
  ["a Buffer", { value: { blob: Buffer.from("bytes") } }],
  ["quotes and a colon inside text", { value: { text: 'he said ",":x" and left', other: '{"a":":b"}' } }],
  ["undefined fields and a date", { value: { gone: undefined, when: new Date(0), list: [1, undefined, 3] } }],
  ["unicode", { value: { text: "grüße — 你好 🎉" } }],
  ["a top-level string", ":colon"],
  ["a plain top-level string", "plain"],
  ["null", null],
];

describe("keyv's value format, at JSON's speed", () => {
  it.each(VALUES)("writes %s exactly as keyv's serializer does", (_name, value) => {
    expect(serializeKeyvJson(value)).toBe(defaultSerialize(value));
  });

  it.each(VALUES)("reads %s as keyv's deserializer does, written by either", (_name, value) => {
    const written = defaultSerialize(value);
    expect(deserializeKeyvJson(written)).toEqual(defaultDeserialize(written));
    expect(deserializeKeyvJson(serializeKeyvJson(value))).toEqual(defaultDeserialize(written));
  });

  it("reads JSON with whitespace (written by other tools) as keyv does", () => {
    for (const text of ['{ "value": ":x" }', '[ ":y", 1 ]', '  ":z"', '{"a": {"b" : ":w"}}']) {
      expect(deserializeKeyvJson(text)).toEqual(defaultDeserialize(text));
    }
  });

  it("takes the fast path for ordinary records (nothing to escape)", () => {
    const record = { value: { id: "run-1", text: "no colon at the start" }, expires: 5 };
    expect(serializeKeyvJson(record)).toBe(JSON.stringify(record));
  });
});
