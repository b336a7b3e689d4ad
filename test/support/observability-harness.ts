import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import {
  createObservability,
  createPinoLogger,
  Engine,
  RequestTracking,
  type Store,
  Team,
} from "@switchboard/core";
import {
  requestsConfigSchema,
  stepsConfigSchema,
  type UsageConfigInput,
  usageConfigSchema,
} from "@switchboard/core/config";
import { SwitchboardMetrics, startHttpServer } from "@switchboard/core/host";
import { RecordingAdapter } from "@switchboard/core/testing";
import { z } from "zod";

/** A model reply that reports token usage the way providers do (LangChain's `usage_metadata`). */
export function reply(
  content: string,
  tokens: { input: number; output: number; cached?: number },
  toolCalls: ReadonlyArray<{ name: string; args?: Record<string, unknown> }> = [],
): AIMessage {
  return new AIMessage({
    content,
    tool_calls: toolCalls.map((call) => ({
      id: randomUUID(),
      name: call.name,
      args: call.args ?? {},
      type: "tool_call",
    })),
    usage_metadata: {
      input_tokens: tokens.input,
      output_tokens: tokens.output,
      total_tokens: tokens.input + tokens.output,
      input_token_details: { cache_read: tokens.cached ?? 0 },
    },
    response_metadata: { finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop" },
  });
}

/** Answers each call with the next scripted reply, whatever the prompt; counts what it was asked. */
export function scriptedUsageModel(replies: readonly BaseMessage[]) {
  const model = fakeModel();
  for (const next of replies) model.respond(next);
  return model;
}

export interface ObservabilityHarnessOptions {
  readonly store: Store;
  readonly model: ReturnType<typeof fakeModel>;
  readonly usage?: UsageConfigInput;
  /** Written into the logger's secret list, as the CLI does with the configuration's secrets. */
  readonly secrets?: readonly string[];
}

/**
 * Engine + tracked team (supervisor and a billing specialist with one tool) + the observability
 * wiring the CLI does: steps log, usage, limits, metrics on a real HTTP server, pino JSON logs.
 */
export async function startObservabilityHarness(options: ObservabilityHarnessOptions) {
  const logLines: string[] = [];
  const logger = createPinoLogger({
    level: "debug",
    pretty: false,
    secrets: options.secrets ?? [],
    write: (line) => logLines.push(line),
  });
  const clock = { now: () => Date.now() };
  const metrics = new SwitchboardMetrics({ atomic: options.store.atomic });
  const observability = createObservability({
    store: options.store,
    steps: stepsConfigSchema.parse({}),
    usage: usageConfigSchema.parse(options.usage ?? {}),
    clock,
    logger,
    metrics,
  });
  const tracking = new RequestTracking({
    store: options.store,
    clock,
    logger,
    config: requestsConfigSchema.parse({}),
  });
  /** The LangChain callbacks each tool call ran with (the run-steps log adds none). */
  const toolCallbacks: unknown[] = [];
  const lookupInvoice = tool(
    async ({ number }, config) => {
      toolCallbacks.push(config?.callbacks);
      return `Invoice ${number}: paid twice, refund pending.`;
    },
    {
      name: "lookup_invoice",
      description: "Looks up an invoice by number.",
      schema: z.object({ number: z.string() }),
    },
  );
  const team = new Team({
    config: {
      supervisor: { prompt: "You route.", tools: [] },
      specialists: [
        {
          name: "billing",
          description: "invoices and refunds",
          prompt: "You do billing.",
          tools: ["lookup_invoice"],
        },
      ],
    },
    routing: { sticky: true },
    limits: { maxIterations: 20, maxRepeatedToolCalls: 5, wallTimeSeconds: 600 },
    checkpointer: new MemorySaver(),
    store: options.store,
    modelFor: () => options.model,
    describeModel: () => "scripted",
    tools: { lookup_invoice: lookupInvoice },
    statusLines: tracking.statusLines,
    ...(observability.teamSteps ? { stepsFor: observability.teamSteps } : {}),
    logger,
  });
  const tracked = tracking.track(team);
  const responder = observability.observe(tracked);
  const adapter = new RecordingAdapter();
  const engine = new Engine({
    store: options.store,
    adapters: [adapter],
    responder,
    continuations: responder,
    commands: observability.recordCommands([
      ...team.commands,
      ...tracking.commands(),
      ...observability.commands,
    ]),
    observers: [...observability.observers],
    deliveryObserver: observability.deliveryObserver,
    onAccept: (outcome, message) => metrics.accepted(outcome, message),
    logger,
  });
  tracking.bind(engine, { sweep: false });
  await engine.start();
  const http = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    health: async () => ({}),
    metrics: () => metrics.exposition(),
    logger,
  });
  return {
    adapter,
    engine,
    observability,
    logLines,
    toolCallbacks,
    metricsUrl: `${http.url}/metrics`,
    /** Sends a user's message and waits until it is answered and every step is written. */
    async say(text: string, userId = "user-1"): Promise<string[]> {
      const before = adapter.posts.length;
      await adapter.send(text, { author: { id: userId, displayName: userId, isBot: false, isSelf: false } });
      await engine.idle();
      await observability.flushed();
      return adapter.posts.slice(before).map((post) => post.text);
    },
    async stop() {
      await http.close();
      await tracking.close();
      await engine.stop();
      await observability.flushed();
    },
  };
}
