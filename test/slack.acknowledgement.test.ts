import type { InboundMessage } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { createSlackAdapter, type SlackAdapter } from "@switchboard/slack";
import { afterEach, describe, expect, it } from "vitest";
import { eventCallback, messageEvent } from "./support/slack/event-payloads.ts";
import type { Delivery } from "./support/slack/event-transport.ts";
import { FakeSlack, type Transport } from "./support/slack/fake-slack.ts";
import { ALICE, ALICE_DM } from "./support/slack/workspace-state.ts";

/** Whether a promise settled within `ms` (without waiting longer). */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  const watched = promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await Promise.race([watched, new Promise((resolve) => setTimeout(resolve, ms))]);
  return settled;
}

describe("Slack acknowledges an event once the engine accepted it", () => {
  let slack: FakeSlack;
  let adapter: SlackAdapter;
  afterEach(async () => {
    await adapter?.stop();
    await slack?.close();
  });

  async function start(transport: Transport, sink: (message: InboundMessage) => Promise<void>) {
    slack = await FakeSlack.start({ transport, echoBotMessages: false });
    adapter = await createSlackAdapter(slack.adapterConfig());
    if (transport === "http") slack.connectHttp(() => adapter.port);
    await adapter.start(sink);
  }

  /** A DM from Alice, delivered the way the transport does (Socket Mode: a short ack deadline). */
  function deliverDm(text: string, retryNum?: number): Promise<Delivery> {
    const message = slack.state.add({ channel: ALICE_DM, user: ALICE, text });
    const body = eventCallback(messageEvent(slack.state, message));
    if (slack.transport === "socket" && slack.socket)
      return slack.socket.send("events_api", body, retryNum ?? 0, 1_500).then(() => ({ status: 200 }));
    return slack.deliver(body, retryNum);
  }

  for (const transport of ["http", "socket"] as const) {
    it(`holds the ack (${transport}) until the engine has taken the message`, async () => {
      const handedOver: InboundMessage[] = [];
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await start(transport, async (message) => {
        handedOver.push(message);
        await held;
      });
      const delivery = deliverDm("hello");
      await waitFor("the hand-over", () => handedOver[0]);
      expect(await settledWithin(delivery, 300)).toBe(false);
      release();
      expect((await delivery).status).toBe(200);
    });
  }

  it("answers 503 over HTTP when the engine refuses, and takes Slack's retry once it accepts", async () => {
    let accepting = false;
    const accepted: InboundMessage[] = [];
    await start("http", async (message) => {
      if (!accepting) throw new Error("the engine is stopping");
      accepted.push(message);
    });
    const message = slack.state.add({ channel: ALICE_DM, user: ALICE, text: "are you there?" });
    const body = eventCallback(messageEvent(slack.state, message));
    expect((await slack.deliver(body)).status).toBe(503);
    accepting = true;
    expect((await slack.deliver(body, 1)).status).toBe(200);
    expect(accepted.map((inbound) => inbound.text)).toEqual(["are you there?"]);
  });

  it("sends no Socket Mode ack when the engine refuses, so Slack delivers the envelope again", async () => {
    let accepting = false;
    const accepted: InboundMessage[] = [];
    await start("socket", async (message) => {
      if (!accepting) throw new Error("the engine is stopping");
      accepted.push(message);
    });
    await expect(deliverDm("first try")).rejects.toThrow(/no ack/);
    accepting = true;
    expect((await deliverDm("second try")).status).toBe(200);
    expect(accepted.map((inbound) => inbound.text)).toEqual(["second try"]);
  });
});
