import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getContextVariable, setContextVariable } from "@langchain/core/context";
import { RunnableLambda } from "@langchain/core/runnables";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { LangChainTracer } from "@langchain/core/tracers/tracer_langchain";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { Client } from "langsmith";
import { getCurrentRunTree } from "langsmith/singletons/traceable";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { skipUntracedRunTrees } from "./untraced-run-trees.ts";

/** What a step saw of its context: the run tree LangSmith would trace it under, and the config LangChain hands on. */
interface Seen {
  readonly treeId: string | undefined;
  readonly treeName: string | undefined;
  readonly parentName: string | undefined;
  readonly tracing: boolean | undefined;
  readonly threadId: unknown;
  readonly signalSeen: boolean;
  readonly variable: unknown;
}

const State = Annotation.Root({
  steps: Annotation<Seen[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});

/** What a runnable called from inside a node without passing its config sees (LangChain finds it on the context). */
const look = RunnableLambda.from((_: unknown): Seen => {
  const tree = getCurrentRunTree(true);
  const config: unknown = AsyncLocalStorageProviderSingleton.getRunnableConfig();
  const configurable =
    typeof config === "object" && config !== null && "configurable" in config
      ? (config.configurable as Record<string, unknown> | undefined)
      : undefined;
  const signal =
    typeof config === "object" && config !== null && "signal" in config ? config.signal : undefined;
  return {
    treeId: tree?.id,
    treeName: tree?.name,
    parentName: tree?.parent_run?.name,
    tracing: tree?.tracingEnabled,
    threadId: configurable?.thread_id,
    signalSeen: signal instanceof AbortSignal,
    variable: getContextVariable("team"),
  };
}).withConfig({ runName: "look" });

function twoStepGraph() {
  return new StateGraph(State)
    .addNode("first", async () => ({ steps: [await look.invoke(null)] }))
    .addNode("second", async () => ({ steps: [await look.invoke(null)] }))
    .addEdge(START, "first")
    .addEdge("first", "second")
    .addEdge("second", END)
    .compile();
}

/** A LangSmith API that takes every run it is sent (the client's batches), so tracing can run without the network. */
let langsmith: Server;
let langsmithUrl: string;
const received: string[] = [];
beforeAll(async () => {
  langsmith = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push(`${request.method} ${request.url} ${Buffer.concat(chunks).toString("utf8")}`);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => langsmith.listen(0, "127.0.0.1", resolve));
  langsmithUrl = `http://127.0.0.1:${(langsmith.address() as AddressInfo).port}`;
  skipUntracedRunTrees();
});
afterAll(() => new Promise<void>((resolve) => langsmith.close(() => resolve())));

describe("graph steps nobody traces", () => {
  it("run without a LangSmith run tree built for each step", async () => {
    const { steps } = await twoStepGraph().invoke({ steps: [] });
    expect(steps).toHaveLength(2);
    // One quiet tree copied for every step: LangChain's own method built each step a new one (a new id).
    expect(steps[0]?.treeId).toBeDefined();
    expect(steps[1]?.treeId).toBe(steps[0]?.treeId);
    expect(steps.map((step) => step.tracing)).toEqual([false, false]);
  });

  it("still hand each step its config and the context variables around the graph", async () => {
    const controller = new AbortController();
    const graph = twoStepGraph();
    const { steps } = await RunnableLambda.from(async () => {
      setContextVariable("team", "billing");
      return graph.invoke({ steps: [] }, { configurable: { thread_id: "t-1" }, signal: controller.signal });
    }).invoke(null);
    expect(steps.map((step) => [step.threadId, step.signalSeen, step.variable])).toEqual([
      ["t-1", true, "billing"],
      ["t-1", true, "billing"],
    ]);
  });

  it("let a runnable called inside a step be stopped by the graph's signal", async () => {
    const controller = new AbortController();
    const waits = RunnableLambda.from(
      (_: unknown, config) =>
        new Promise<never>((_resolve, reject) => {
          config?.signal?.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
          controller.abort();
        }),
    );
    const graph = new StateGraph(State)
      .addNode("only", async () => ({ steps: [await waits.invoke(null)] }))
      .addEdge(START, "only")
      .addEdge("only", END)
      .compile();
    await expect(graph.invoke({ steps: [] }, { signal: controller.signal })).rejects.toThrow();
  });
});

describe("graph steps a LangSmith tracer sees", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it("run in the tracer's own run tree when a tracer is among the callbacks", async () => {
    const client = new Client({ apiUrl: langsmithUrl, apiKey: "test-key" });
    const tracer = new LangChainTracer({ client, projectName: "switchboard-test" });
    const { steps } = await twoStepGraph().invoke({ steps: [] }, { callbacks: [tracer] });
    await client.awaitPendingTraceBatches();
    // The tree of the traced run of the runnable inside each node, under the node's run: not a quiet copy.
    expect(steps.map((step) => [step.treeName, step.parentName])).toEqual([
      ["look", "first"],
      ["look", "second"],
    ]);
    expect(steps.every((step) => step.tracing === true)).toBe(true);
    expect(steps[0]?.treeId).not.toBe(steps[1]?.treeId);
  });

  it("are traced to LangSmith when tracing is switched on in the environment", async () => {
    process.env.LANGSMITH_TRACING = "true";
    process.env.LANGSMITH_ENDPOINT = langsmithUrl;
    process.env.LANGSMITH_API_KEY = "test-key";
    received.length = 0;
    const { steps } = await twoStepGraph().invoke({ steps: [] });
    expect(steps.map((step) => [step.treeName, step.parentName, step.tracing])).toEqual([
      ["look", "first", true],
      ["look", "second", true],
    ]);
    // The runs reach the API: the graph's nodes are in what it was sent.
    await expect.poll(() => received.join("\n"), { timeout: 10_000 }).toMatch(/"name":"second"/);
  });
});
