/**
 * `consult`: the specialist holding a thread asks a colleague one question. The colleague answers
 * from its own prompt and the conversation's memory context, into the asker's tool result — never
 * to the user — and the thread stays with the asker (nothing here touches the active agent). Its
 * model calls are tagged with its name, so the run-steps log and usage count them as its own.
 * Consults nest only to `team.maxConsultDepth`: a colleague deeper than that is not offered the
 * tool, and the tool refuses a call that would go deeper anyway.
 *
 * A colleague answers from what it knows; its other tools stay with it (a consult must be safe to
 * ask again after a crash, so it takes the run's idempotency key and has no side effects).
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import { textOf } from "./history.ts";
import { streamedModelCall, TURN_EVENTS_KEY } from "./streamed-call.ts";
import { invokeAtMostOnce } from "./tool-calls.ts";

export const CONSULT = "consult";

/** How many consults deep a run's tool call is (0: the thread's own agent). */
const DEPTH_KEY = "consult_depth";

/** A specialist another one may consult. */
export interface Colleague {
  readonly name: string;
  readonly description: string;
  readonly prompt: string;
  readonly model: BaseChatModel;
}

export interface ConsultOptions {
  /** The specialists (looked up per call: the tool is made before the agents that hold it). */
  readonly colleagues: () => readonly Colleague[];
  /** `team.maxConsultDepth`. */
  readonly maxDepth: number;
  /** Model calls one consulted colleague may make (its own consults included). */
  readonly maxSteps: number;
  /** The conversation's memory context, as every agent's prompt has it. */
  readonly contextFor: (threadId: string) => Promise<string | undefined>;
  /** The run's date, time and place line, when it has one. */
  readonly situationOf: (config: RunnableConfig) => string | undefined;
  /** One model call under the process's retry policy (as the graph's). */
  readonly callModel: <T>(
    call: (signal: AbortSignal | undefined, firstToken: () => void) => Promise<T>,
    signal: AbortSignal | undefined,
  ) => Promise<T>;
}

export const consultMessages = {
  self: "You cannot consult yourself: answer from what you know, or ask another colleague.",
  unknown: (name: string, others: readonly string[]) =>
    `There is no colleague named "${name}". You can consult: ${others.length > 0 ? others.join(", ") : "nobody"}.`,
  tooDeep: (max: number) =>
    `Consults go at most ${max} deep and this one would go deeper: answer from what you know.`,
};

/** The colleague's instructions for one consult, after its own prompt. */
function consultNote(asker: string): string {
  return (
    `Your colleague ${asker} is answering a user and asks you one question. Answer it for ${asker}, ` +
    "briefly and completely: your answer goes to them, not to the user."
  );
}

/** The tool for agent `asker`, at the depth its calls run at. */
export function consultTool(asker: string, options: ConsultOptions): StructuredToolInterface {
  const others = () =>
    options
      .colleagues()
      .filter((colleague) => colleague.name !== asker)
      .map((colleague) => `${colleague.name} (${colleague.description})`);
  return tool(
    async ({ agent, question }: { agent: string; question: string }, config: RunnableConfig) =>
      askColleague(asker, agent, question, config, options),
    {
      name: CONSULT,
      description:
        "Ask a colleague specialist one question and get their answer back here (the user does not see it; " +
        `you keep the conversation). Colleagues: ${others().join("; ")}.`,
      schema: z.object({
        agent: z.string().describe("The colleague's name."),
        question: z.string().min(1).describe("The question, with what they need to know to answer it."),
      }),
      metadata: { acceptsIdempotencyKey: true },
    },
  );
}

async function askColleague(
  asker: string,
  name: string,
  question: string,
  config: RunnableConfig,
  options: ConsultOptions,
): Promise<string> {
  const depth = depthOf(config);
  if (depth >= options.maxDepth) throw new Error(consultMessages.tooDeep(options.maxDepth));
  if (name === asker) throw new Error(consultMessages.self);
  const colleague = options.colleagues().find((candidate) => candidate.name === name);
  if (!colleague)
    throw new Error(
      consultMessages.unknown(
        name,
        options
          .colleagues()
          .map((candidate) => candidate.name)
          .filter((candidate) => candidate !== asker),
      ),
    );
  const threadId = String(config.configurable?.thread_id ?? "");
  const system = new SystemMessage(
    [colleague.prompt, await options.contextFor(threadId), consultNote(asker), options.situationOf(config)]
      .filter((part) => part !== undefined && part !== "")
      .join("\n\n"),
  );
  const messages: BaseMessage[] = [system, new HumanMessage(question)];
  // Deeper consults only while the depth allows: a colleague at the limit is not offered the tool.
  const deeper = depth + 1 < options.maxDepth ? consultTool(colleague.name, options) : undefined;
  const model = deeper ? colleague.model.bindTools?.([deeper]) : colleague.model;
  if (!model) throw new Error(`the model of ${colleague.name} cannot call tools`);
  // Nothing the colleague writes is shown in the thread: its calls run without the turn's listener.
  const { [TURN_EVENTS_KEY]: _listener, ...configurable } = config.configurable ?? {};
  const quiet: RunnableConfig = {
    ...config,
    configurable: { ...configurable, [DEPTH_KEY]: depth + 1 },
  };
  for (let step = 0; step < options.maxSteps; step++) {
    const reply = await options.callModel(
      streamedModelCall(model, messages, colleague.name, quiet),
      config.signal,
    );
    const calls = reply.tool_calls ?? [];
    if (calls.length === 0) return `${colleague.name} answers: ${textOf(reply).trim() || "(nothing)"}`;
    messages.push(new AIMessage({ content: reply.content, tool_calls: calls }));
    for (const call of calls)
      messages.push(
        await invokeAtMostOnce(
          colleague.name,
          call.name === CONSULT ? deeper : undefined,
          call,
          quiet,
          undefined,
        ),
      );
  }
  throw new Error(`${colleague.name} did not answer within ${options.maxSteps} steps`);
}

function depthOf(config: RunnableConfig): number {
  const depth: unknown = config.configurable?.[DEPTH_KEY];
  return typeof depth === "number" ? depth : 0;
}
