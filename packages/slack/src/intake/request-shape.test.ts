import { describe, expect, it } from "vitest";
import { checkRequestShape, isSlackPayload } from "./request-shape.ts";

const JSON_TYPE = "application/json";
const FORM_TYPE = "application/x-www-form-urlencoded";

describe("checkRequestShape", () => {
  const accepted = [
    {
      name: "an event callback",
      type: JSON_TYPE,
      body: '{"type":"event_callback","event":{"type":"message"}}',
    },
    { name: "url verification", type: JSON_TYPE, body: '{"type":"url_verification","challenge":"x"}' },
    {
      name: "JSON with a charset",
      type: "application/json; charset=utf-8",
      body: '{"type":"app_rate_limited"}',
    },
    { name: "a slash command", type: FORM_TYPE, body: "command=%2Fswitchboard&text=status" },
    {
      name: "an interaction",
      type: FORM_TYPE,
      body: `payload=${encodeURIComponent('{"type":"block_actions"}')}`,
    },
    { name: "Slack's SSL check", type: FORM_TYPE, body: "ssl_check=1&token=x" },
  ];
  for (const { name, type, body } of accepted) {
    it(`accepts ${name}`, () => {
      expect(checkRequestShape(type, body).ok).toBe(true);
    });
  }

  const refused = [
    { name: "null", type: JSON_TYPE, body: "null", status: 400 },
    {
      name: "an event callback without an event",
      type: JSON_TYPE,
      body: '{"type":"event_callback"}',
      status: 400,
    },
    { name: "an object without a type", type: JSON_TYPE, body: "{}", status: 400 },
    { name: "a form payload of null", type: FORM_TYPE, body: "payload=null", status: 400 },
    { name: "a form payload that is a number", type: FORM_TYPE, body: "payload=5", status: 400 },
    { name: "an empty form", type: FORM_TYPE, body: "", status: 400 },
    { name: "JSON sent as text", type: "text/plain", body: '{"type":"event_callback"}', status: 415 },
    { name: "a form sent as multipart", type: "multipart/form-data", body: "command=x", status: 415 },
  ];
  for (const { name, type, body, status } of refused) {
    it(`refuses ${name} with ${status}`, () => {
      expect(checkRequestShape(type, body)).toMatchObject({ ok: false, status });
    });
  }
});

describe("isSlackPayload (Socket Mode)", () => {
  it("requires the same shapes as over HTTP", () => {
    expect(isSlackPayload("events_api", { type: "event_callback", event: { type: "message" } })).toBe(true);
    expect(isSlackPayload("events_api", null)).toBe(false);
    expect(isSlackPayload("slash_commands", { command: "/switchboard", text: "" })).toBe(true);
    expect(isSlackPayload("slash_commands", { text: "" })).toBe(false);
    expect(isSlackPayload("interactive", [])).toBe(false);
  });
});
