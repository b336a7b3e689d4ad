/**
 * Interim messages (`send_message`) with the real CLI on the Slack stand-in, killed with SIGKILL
 * mid-turn: after the message was posted and before the answer, and between posting the message
 * and hearing back from Slack. The restarted process (with Slack's retry of the event arriving)
 * never posts the message again, and posts the answer once, below it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { CrashWorld, type StoreKind } from "../support/crash/crash-world.ts";
import { holdPosts } from "../support/crash/held-posts.ts";
import { shortAnswer, tokenOf } from "../support/crash/scripted-answers.ts";
import { pause } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";
import { type ChatRequest, hang, type StubReply } from "../support/model/chat-request.ts";
import { BOT_ID } from "../support/slack/workspace-state.ts";

const TOKEN = "q001";
const interimText = (token: string) => `Found three options for ${token}, checking prices…`;

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The model sends one message, then answers — or, while `holdAnswer`, never answers. */
function interimScript(options: { holdAnswer: () => boolean }) {
  return (request: ChatRequest): StubReply => {
    const token = tokenOf(request);
    if (!request.toolResults.has("send_message"))
      return { kind: "answer", toolCalls: [{ name: "send_message", args: { text: interimText(token) } }] };
    return options.holdAnswer() ? hang() : { kind: "answer", text: shortAnswer(token) };
  };
}

function botPosts(origin: Origin): string[] {
  return world!.slack.state
    .thread(origin.message.channel, origin.threadTs)
    .filter((post) => post.bot_id === BOT_ID)
    .map((post) => post.text);
}

async function waitFor(what: string, probe: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${world?.logs(40)}`);
    await pause(50);
  }
}

/** After the restart: the answer arrives, and nothing more for a while (a double would show by then). */
async function settled(origin: Origin): Promise<string[]> {
  await waitFor("the answer", () => botPosts(origin).includes(shortAnswer(TOKEN)));
  await pause(4_000);
  return botPosts(origin);
}

describe.each<StoreKind>(["sqlite", "redis"])("interim messages across a SIGKILL (%s)", (store) => {
  it("killed after the message was posted, before the answer: the message stays single, the answer comes once", {
    timeout: 90_000,
  }, async () => {
    let holding = true;
    world = await CrashWorld.start({
      store,
      script: interimScript({ holdAnswer: () => holding }),
    });
    const first = await world.startCli();
    const origin = world.traffic.mention(TOKEN);
    await world.traffic.deliverAll(world.transport(), [origin]);
    await waitFor("the interim message", () => botPosts(origin).includes(interimText(TOKEN)));
    // The model is writing the answer when the process dies.
    await world.stub().inFlight.atLeast(1);
    await first.kill();

    holding = false;
    const before = world.stub().received.value;
    await world.startCli();
    await world.traffic.deliverAll(world.transport(), [origin], { retryNum: 1 });
    expect(await settled(origin), world.logs()).toEqual([interimText(TOKEN), shortAnswer(TOKEN)]);
    // The run went on where it stopped: only the answer was asked for again, not the message.
    expect(world.stub().received.value - before).toBe(1);
  });
});

describe("interim messages across a SIGKILL while Slack holds the reply", () => {
  it("killed between posting the message and hearing back: found on Slack, not posted again", {
    timeout: 90_000,
  }, async () => {
    world = await CrashWorld.start({ store: "sqlite", script: interimScript({ holdAnswer: () => false }) });
    const held = holdPosts(world.slack.api, (text) => text === interimText(TOKEN));
    const first = await world.startCli();
    const origin = world.traffic.mention(TOKEN);
    await world.traffic.deliverAll(world.transport(), [origin]);
    await waitFor("the interim message's post to be held", () => held.held.value === 1);
    await first.kill();
    held.release();

    await world.startCli();
    await world.traffic.deliverAll(world.transport(), [origin], { retryNum: 1 });
    expect(await settled(origin), world.logs()).toEqual([interimText(TOKEN), shortAnswer(TOKEN)]);
  });
});
