/**
 * The Bolt internals library-patches.ts relies on, on the real Bolt and Socket Mode client: this
 * fails when an upgrade changes one of them, before the patch silently stops working.
 */

import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { HTTPModuleFunctions, SocketModeReceiver } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import {
  replaceSocketEventListener,
  type SocketEnvelope,
  screenSocketMessages,
  withBufferedBody,
} from "./library-patches.ts";

const ENVELOPE = JSON.stringify({
  type: "events_api",
  envelope_id: "e-1",
  payload: { type: "event_callback", event: { type: "message", text: "hi" } },
  retry_attempt: 2,
  retry_reason: "timeout",
});

function receiver(): SocketModeReceiver {
  return new SocketModeReceiver({ appToken: "xapp-1-test" });
}

describe("Bolt internals the Slack adapter patches", () => {
  it("Bolt's Socket Mode receiver listens to its client's slack_event once, which the patch replaces", () => {
    const socket = receiver();
    expect(socket.client.listenerCount("slack_event")).toBe(1);
    const ours = async () => undefined;
    replaceSocketEventListener(socket, ours);
    expect(socket.client.listeners("slack_event")).toEqual([ours]);
  });

  it("the client reads raw ws_message data into slack_event envelopes of the shape we read", async () => {
    const socket = receiver();
    expect(socket.client.listenerCount("ws_message")).toBe(1);
    const seen: SocketEnvelope[] = [];
    replaceSocketEventListener(socket, async (envelope) => {
      seen.push(envelope);
    });
    const refused: unknown[] = [];
    screenSocketMessages(
      socket,
      (data) => {
        if (data === "refused") refused.push(data);
        return data !== "refused";
      },
      (error) => {
        throw error;
      },
    );
    socket.client.emit("ws_message", "refused", false);
    socket.client.emit("ws_message", ENVELOPE, false);
    await expect.poll(() => seen.length).toBe(1);
    expect(refused).toEqual(["refused"]);
    const [envelope] = seen;
    expect(typeof envelope?.ack).toBe("function");
    expect(envelope).toMatchObject({
      type: "events_api",
      body: { event: { type: "message", text: "hi" } },
      retry_num: 2,
      retry_reason: "timeout",
    });
  });

  it("Bolt's HTTP receiver takes a request with a Buffer rawBody as read, and parses that body", async () => {
    const request = new IncomingMessage(new Socket());
    request.headers["content-type"] = "application/json";
    const buffered = withBufferedBody(request, Buffer.from('{"type":"event_callback"}'));
    expect(HTTPModuleFunctions.isBufferedIncomingMessage(buffered)).toBe(true);
    const same = await HTTPModuleFunctions.bufferIncomingMessage(buffered);
    expect(same).toBe(buffered);
    expect(HTTPModuleFunctions.parseHTTPRequestBody(same)).toEqual({ type: "event_callback" });
  });
});
