import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../conversation/messages.ts";
import { decodeConversationKey } from "../conversation/ref.ts";
import { RequestTracking } from "../runs/request-tracking.ts";
import { requestsConfigSchema } from "../runs/runs-config.ts";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "../store/open-store.ts";
import type { Store } from "../store/types.ts";
import { Team } from "./team.ts";
import { HUMAN } from "./team-config.ts";

const KEY = "slack:T1:C1:1700000000.000100";
const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function teamAnswering(...answers: (string | Error)[]) {
  const store = await openStore("memory:", { logger: silentLogger });
  opened.push(store);
  const model = fakeModel();
  for (const answer of answers) model.respond(typeof answer === "string" ? new AIMessage(answer) : answer);
  const team = new Team({
    config: { supervisor: { prompt: "You help.", tools: [] }, specialists: [] },
    routing: { sticky: true },
    limits: { maxIterations: 20, maxRepeatedToolCalls: 5, wallTimeSeconds: 600 },
    checkpointer: new MemorySaver(),
    store,
    modelFor: () => model,
    describeModel: () => "scripted",
    tools: {},
  });
  const run = (text: string, runId: string, resumed = false) =>
    team.run({ key: KEY, userId: "U1", signal: new AbortController().signal, text, runId, resumed });
  const history = async () =>
    ((await team.conversationState(KEY))?.messages ?? []).map((message: BaseMessage) => [
      message.getType(),
      String(message.content),
    ]);
  const tracking = new RequestTracking({
    store,
    clock: { now: () => Date.now() },
    logger: silentLogger,
    config: requestsConfigSchema.parse({}),
  });
  return { team, model, run, history, tracking, responder: tracking.track(team) };
}

describe("a run run again under its own id", () => {
  it("after it ended: answers what it answered, without asking the model or adding the message again", async () => {
    const { model, run, history } = await teamAnswering("Hello!", "A second answer.");
    expect(await run("hi", "run-1")).toEqual(expect.objectContaining({ kind: "answered", text: "Hello!" }));
    expect(await run("hi", "run-1", true)).toEqual(
      expect.objectContaining({ kind: "answered", text: "Hello!", agent: "supervisor" }),
    );
    expect(model.callCount).toBe(1);
    expect(await history()).toEqual([
      ["human", "hi"],
      ["ai", "Hello!"],
    ]);
  });

  it("after it ended and its session was archived: runs again, since the history no longer has its answer", async () => {
    const { team, model, run, history } = await teamAnswering("Hello!", "Hello again!");
    await run("hi", "run-1");
    await team.replaceHistory(KEY, []);
    expect(await run("hi", "run-1", true)).toEqual(
      expect.objectContaining({ kind: "answered", text: "Hello again!" }),
    );
    expect(model.callCount).toBe(2);
    expect(await history()).toEqual([
      ["human", "hi"],
      ["ai", "Hello again!"],
    ]);
  });

  it("after it failed: goes on from where it stopped, the message in the history once", async () => {
    const { model, run, history } = await teamAnswering(new Error("the provider is down"), "Hello!");
    await expect(run("hi", "run-1")).rejects.toThrow("the provider is down");
    expect(await run("hi", "run-1", true)).toEqual(
      expect.objectContaining({ kind: "answered", text: "Hello!" }),
    );
    expect(model.callCount).toBe(2);
    expect(await history()).toEqual([
      ["human", "hi"],
      ["ai", "Hello!"],
    ]);
  });

  it("a message answered again after its run failed (a later try) is answered by that run, in the history once", async () => {
    const { model, history, tracking, responder } = await teamAnswering(
      new Error("the provider is down"),
      "Hello!",
    );
    const message: InboundMessage = {
      id: "C1:1700000000.000100",
      conversation: decodeConversationKey(KEY),
      author: { id: "U1", displayName: "ann", isBot: false, isSelf: false },
      text: "hi",
      isDirect: false,
      mentionsBot: true,
      isEdit: false,
      sentAt: Date.now(),
    };
    const turn = { key: KEY, conversation: message.conversation, message, text: "hi", workId: "w1" };
    const signal = new AbortController().signal;
    await expect(responder.respond({ ...turn, signal })).rejects.toThrow("the provider is down");
    expect((await responder.respond({ ...turn, signal })).text).toBe("Hello!");
    expect(model.callCount).toBe(2);
    const request = await tracking.tracker.byOrigin(message.id);
    expect(request?.runs.map((run) => [run.status, run.error])).toEqual([["completed", undefined]]);
    expect(await history()).toEqual([
      ["human", "hi"],
      ["ai", "Hello!"],
    ]);
  });

  it("in a thread a person has: the message joins the history once", async () => {
    const { team, run, history } = await teamAnswering("Hello!");
    await run("hi", "run-1");
    await team.activeAgents.set(KEY, HUMAN);
    for (let attempt = 0; attempt < 2; attempt++)
      expect(await run("can a person help?", "run-2", attempt > 0)).toEqual({
        kind: "with-person",
        agent: HUMAN,
      });
    expect(await history()).toEqual([
      ["human", "hi"],
      ["ai", "Hello!"],
      ["human", "can a person help?"],
    ]);
  });
});
