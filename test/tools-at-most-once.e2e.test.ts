/**
 * Tools run at most once: a run stopped in the middle of a tool call (here by a shutdown; the
 * crash tests do the same with SIGKILL) is run again by the next process under the same run id.
 * The model's tool-calling reply is replayed, a call with a recorded result is not made again, a
 * call that started but never finished goes again only with the same idempotency key, and a tool
 * that cannot recognise a repeat is reported to the agent as of unknown outcome.
 */
import { join } from "node:path";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createHttpTool, openStore, type Store } from "@switchboard/core";
import { encodeConversationKey } from "@switchboard/core/adapter";
import { httpToolConfigSchema } from "@switchboard/core/config";
import { RecordingAdapter, UNKNOWN_OUTCOME, waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { StoreOutageError } from "../packages/core/src/store/errors.ts";
import { tempDirectory } from "../packages/core/src/store/test-backends.ts";
import { startCountingEndpoint } from "./support/tools/counting-endpoint.ts";
import { startTrackingHarness } from "./support/tracking-harness.ts";

const thread = { platform: "test", path: ["general", "root-refund"] };

let directory: Awaited<ReturnType<typeof tempDirectory>>;
let store: Store;
let endpoint: Awaited<ReturnType<typeof startCountingEndpoint>>;
beforeEach(async () => {
  directory = await tempDirectory();
  store = await openStore(`sqlite://${join(directory.path, "s.db")}`);
  endpoint = await startCountingEndpoint();
});
afterEach(async () => {
  await endpoint.close();
  await store.close();
  await directory.remove();
});

/**
 * "stopped": a graceful stop writes the run's checkpoint as it ends, and the re-run continues it.
 * "killed": a SIGKILL writes nothing (one checkpoint per run, at its end), so the re-run starts from
 * the message again and only the run journal keeps the tool from running twice — the second
 * process gets a checkpointer with nothing from the first run, exactly what a kill leaves.
 */
describe.each([
  ["stopped", (first: MemorySaver) => first],
  ["killed", () => new MemorySaver()],
])("a run %s in the middle of a tool call, then run again", (_how, checkpointerAfter) => {
  it("sends the call again only with the same idempotency key: the refund happens once, the answer arrives", async () => {
    const refund = createHttpTool(
      httpToolConfigSchema.parse({
        name: "issue_refund",
        description: "refund an invoice",
        url: endpoint.url,
      }),
    );
    const checkpointer = new MemorySaver();
    const first = await startTrackingHarness({
      store,
      checkpointer,
      model: fakeModel().respondWithTools([{ name: "issue_refund", args: { invoice: "A-1" }, id: "call-1" }]),
      catalog: [{ tool: refund, requiresApproval: false }],
      supervisorTools: ["issue_refund"],
    });
    const arrived = endpoint.holdNextRequest();
    await first.adapter.send("refund invoice A-1 please", { conversation: thread });
    await arrived;
    await first.stop(); // mid-call: the endpoint executed it, the answer never came back

    const secondModel = fakeModel().respond(new AIMessage("Refunded: the money is on its way."));
    const second = await startTrackingHarness({
      store,
      checkpointer: checkpointerAfter(checkpointer),
      model: secondModel,
      catalog: [{ tool: refund, requiresApproval: false }],
      supervisorTools: ["issue_refund"],
      adapter: new RecordingAdapter(),
    });
    const answer = await waitFor("the answer after the restart", () =>
      second.adapter.posts.find((post) => post.text.includes("Refunded")),
    );
    expect(answer.text).toBe("Refunded: the money is on its way.");
    expect(endpoint.executions).toHaveLength(1);
    expect(endpoint.keysSeen).toHaveLength(2);
    expect(endpoint.keysSeen[1]).toBe(endpoint.keysSeen[0]);
    expect(endpoint.keysSeen[0]).toMatch(/^run-.+:call-1$/);
    // The tool-calling reply was replayed: the model was asked once, for the answer after the tool.
    expect(secondModel.callCount).toBe(1);
    expect(
      first.adapter.posts.concat(second.adapter.posts).filter((p) => p.text.includes("Refunded")),
    ).toHaveLength(1);
    await second.stop();
  });

  it("tells the agent the outcome is unknown for a tool that cannot recognise a repeat, and never calls it twice", async () => {
    let calls = 0;
    let entered: () => void = () => {};
    const enteredCall = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const bookRoom = tool(
      async () => {
        calls += 1;
        entered();
        return new Promise<string>(() => {}); // never finishes: the process goes away mid-call
      },
      { name: "book_room", description: "book a meeting room", schema: z.object({ room: z.string() }) },
    );
    const checkpointer = new MemorySaver();
    const first = await startTrackingHarness({
      store,
      checkpointer,
      model: fakeModel().respondWithTools([{ name: "book_room", args: { room: "Blue" }, id: "call-7" }]),
      catalog: [{ tool: bookRoom, requiresApproval: false }],
      supervisorTools: ["book_room"],
    });
    await first.adapter.send("book the Blue room", { conversation: thread });
    await enteredCall;
    await first.stop();

    const secondModel = fakeModel().respond((messages) => {
      const result = messages.at(-1);
      return new AIMessage(`I could not confirm the booking: ${String(result?.content).slice(0, 40)}`);
    });
    const second = await startTrackingHarness({
      store,
      checkpointer: checkpointerAfter(checkpointer),
      model: secondModel,
      catalog: [{ tool: bookRoom, requiresApproval: false }],
      supervisorTools: ["book_room"],
      adapter: new RecordingAdapter(),
    });
    const answer = await waitFor("the answer after the restart", () => second.adapter.posts.at(-1));
    expect(calls).toBe(1);
    expect(answer.text).toContain(UNKNOWN_OUTCOME.slice(0, 40));
    await second.stop();
  });

  it("reuses a recorded result without calling the tool again", async () => {
    const { lookUp, calls } = countedLookUp();
    let entered: () => void = () => {};
    const enteredAnswer = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const checkpointer = new MemorySaver();
    const first = await startTrackingHarness({
      store,
      checkpointer,
      model: fakeModel()
        .respondWithTools([{ name: "look_up", args: {}, id: "call-2" }])
        .respond(() => {
          entered();
          return new Promise<never>(() => {}) as never;
        }),
      catalog: [{ tool: lookUp, requiresApproval: false }],
      supervisorTools: ["look_up"],
    });
    await first.adapter.send("what do I owe?", { conversation: thread });
    await enteredAnswer;
    await first.stop();

    const second = await startTrackingHarness({
      store,
      checkpointer: checkpointerAfter(checkpointer),
      model: fakeModel().respond((messages) => new AIMessage(`You owe ${String(messages.at(-1)?.content)}.`)),
      catalog: [{ tool: lookUp, requiresApproval: false }],
      supervisorTools: ["look_up"],
      adapter: new RecordingAdapter(),
    });
    const answer = await waitFor("the answer after the restart", () => second.adapter.posts.at(-1));
    expect(answer.text).toBe("You owe invoice A-1: 40 EUR.");
    expect(calls()).toBe(1);
    await second.stop();
  });
});

/** `look_up`, counting its calls. */
function countedLookUp() {
  let calls = 0;
  const lookUp = tool(
    async () => {
      calls += 1;
      return "invoice A-1: 40 EUR";
    },
    { name: "look_up", description: "look up an invoice", schema: z.object({}) },
  );
  return { lookUp, calls: () => calls };
}

/**
 * The store, with the outbox's write of a turn's answer held until `fail` is called, when it fails
 * as an outage does: the run has ended (its request says so), its answer is not kept.
 */
function answerKeptNever(store: Store) {
  let fail: (error: Error) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  let reached: () => void = () => {};
  const reaching = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const held: Store = {
    description: store.description,
    atomic: store.atomic,
    sortedSets: store.sortedSets,
    close: () => store.close(),
    namespace<Value>(name: string) {
      const namespace = store.namespace<Value>(name);
      if (name !== "outbox") return namespace;
      // A view, not a change to the namespace: the store may hand the same one to the next process.
      const set = (async (key: string, value: Value, ttl?: number) => {
        if (!(value as { answered?: boolean }).answered) return namespace.set(key, value, ttl);
        reached();
        return failed;
      }) as typeof namespace.set;
      return new Proxy(namespace, {
        get: (target, property) => {
          if (property === "set") return set;
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    },
  };
  return { store: held, reaching, fail };
}

describe("a run that ended before its answer was kept (the store went away, the process stopped)", () => {
  it("is not run again: the next process posts what it answered, the model is not asked and the tool not called again", async () => {
    const { lookUp, calls } = countedLookUp();
    const checkpointer = new MemorySaver();
    const holding = answerKeptNever(store);
    const first = await startTrackingHarness({
      store: holding.store,
      checkpointer,
      model: fakeModel()
        .respondWithTools([{ name: "look_up", args: {}, id: "call-3" }])
        .respond(new AIMessage("You owe 40 EUR for invoice A-1.")),
      catalog: [{ tool: lookUp, requiresApproval: false }],
      supervisorTools: ["look_up"],
    });
    await first.adapter.send("what do I owe?", { conversation: thread });
    await holding.reaching;
    const stopping = first.stop();
    holding.fail(new StoreOutageError("the store went away"));
    await stopping;
    const [request] = await first.tracking.tracker.inConversation(encodeConversationKey(thread));
    expect(request?.runs.map((run) => run.status)).toEqual(["completed"]);

    const secondModel = fakeModel()
      .respondWithTools([{ name: "look_up", args: {}, id: "call-4" }])
      .respond(new AIMessage("A second answer nobody should see."));
    const second = await startTrackingHarness({
      store,
      checkpointer,
      model: secondModel,
      catalog: [{ tool: lookUp, requiresApproval: false }],
      supervisorTools: ["look_up"],
      adapter: new RecordingAdapter(),
    });
    const answer = await waitFor("the answer after the restart", () => second.adapter.posts.at(-1));
    expect(answer.text).toBe("You owe 40 EUR for invoice A-1.");
    expect(calls()).toBe(1);
    expect(secondModel.callCount).toBe(0);
    expect(first.adapter.posts).toHaveLength(0);
    // The message is in the history once, with the one answer.
    const state = await second.team.conversationState(encodeConversationKey(thread));
    expect(state?.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai"]);
    expect(state?.messages.at(-1)?.content).toBe("You owe 40 EUR for invoice A-1.");
    await second.stop();
  });
});
