import { createHmac } from "node:crypto";
import { silentLogger } from "@switchboard/core/adapter";
import { afterEach, describe, expect, it } from "vitest";
import { HttpIntake } from "./http-intake.ts";
import { EventNotAccepted } from "./not-accepted.ts";
import { RejectionLog } from "./rejection-log.ts";

const SECRET = "secret";
const PATH = "/slack/events";

const mention = {
  type: "event_callback",
  event_id: "Ev1",
  event: { type: "app_mention", channel: "C1", user: "U1", text: "<@B1> hi", ts: "1.000100" },
};
const reaction = { type: "event_callback", event_id: "Ev2", event: { type: "reaction_added" } };

interface Taken {
  body: Record<string, unknown>;
  retryNum: number | undefined;
}

let intake: HttpIntake | undefined;
afterEach(async () => {
  await intake?.close();
  intake = undefined;
});

/** An intake whose fast path answers with `outcome` (undefined: not its event); records what reached whom. */
async function startIntake(outcome: (body: Record<string, unknown>) => Promise<void> | undefined) {
  const taken: Taken[] = [];
  const handedToBolt: string[] = [];
  const failed: Array<{ error: unknown; refused: boolean }> = [];
  intake = new HttpIntake({
    path: PATH,
    signingSecret: SECRET,
    rejections: new RejectionLog({ logger: silentLogger }),
    handOn: (request, response) => {
      handedToBolt.push(request.url ?? "");
      response.writeHead(200).end("bolt");
    },
    takeEvent: (body, retryNum) => {
      const handOver = outcome(body);
      if (handOver) taken.push({ body, retryNum });
      return handOver;
    },
    onHandOverFailed: (error, refused) => failed.push({ error, refused }),
  });
  const port = await intake.listen(0, "127.0.0.1");
  const send = async (body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac("sha256", SECRET).update(`v0:${timestamp}:${text}`).digest("hex")}`;
    const response = await fetch(`http://127.0.0.1:${port}${PATH}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-slack-request-timestamp": String(timestamp),
        "x-slack-signature": signature,
        ...headers,
      },
      body: text,
    });
    return { status: response.status, text: await response.text() };
  };
  return { taken, handedToBolt, failed, send };
}

describe("HttpIntake's fast path for the events the engine hears", () => {
  it("acknowledges a message event only once its hand-over resolved, without Bolt", async () => {
    let handedOver = false;
    const { taken, handedToBolt, send } = await startIntake(async (body) => {
      if (body.type !== "event_callback") return;
      await new Promise((resolve) => setTimeout(resolve, 30));
      handedOver = true;
    });
    const answer = await send(mention, { "x-slack-retry-num": "2" });
    expect(answer).toEqual({ status: 200, text: "" });
    expect(handedOver).toBe(true);
    expect(taken).toEqual([{ body: mention, retryNum: 2 }]);
    expect(handedToBolt).toEqual([]);
  });

  it("leaves every other request to Bolt", async () => {
    const { taken, handedToBolt, send } = await startIntake(() => undefined);
    expect(await send(reaction)).toEqual({ status: 200, text: "bolt" });
    expect(taken).toEqual([]);
    expect(handedToBolt).toEqual([PATH]);
  });

  it("answers 503 when the engine refused the event, so Slack delivers it again", async () => {
    const refusal = new EventNotAccepted(new Error("store down"));
    const { failed, send } = await startIntake(() => Promise.reject(refusal));
    expect((await send(mention)).status).toBe(503);
    expect(failed).toEqual([{ error: refusal, refused: true }]);
  });

  it("acknowledges an event whose hand-over failed otherwise, and reports it (as Bolt does)", async () => {
    const fault = new Error("bug");
    const { failed, send } = await startIntake(() => Promise.reject(fault));
    expect((await send(mention)).status).toBe(200);
    expect(failed).toEqual([{ error: fault, refused: false }]);
  });

  it("checks the signature before anything is handed over", async () => {
    const { taken, send } = await startIntake(async () => {});
    const answer = await send(mention, { "x-slack-signature": "v0=0000" });
    expect(answer.status).toBe(401);
    expect(taken).toEqual([]);
  });
});
