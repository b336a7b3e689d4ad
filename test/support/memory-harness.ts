import { randomUUID } from "node:crypto";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { type Clock, createMemory, type Store, Team } from "@switchboard/core";
import type { MemoryConfigInput } from "@switchboard/core/config";
import type { MemoryWorkRecorder } from "@switchboard/core/testing";
import { startConsoleEngine } from "./console-engine.ts";

/** `add_entry+put_context`: a flushing turn, recorded and folded into the document in one call. */
export type MemoryOperation = "add_entry" | "add_entry+put_context" | "put_context" | "summary";

export interface ScriptedMemoryOptions {
  /** Called with each operation the memory model is asked for, before it answers. */
  readonly onCall?: (operation: MemoryOperation) => void;
  readonly summary?: string;
  readonly context?: string;
  /** Token usage every reply reports (LangChain's `usage_metadata`), as a provider's would. */
  readonly tokens?: { readonly input: number; readonly output: number };
}

/** A memory model that does what each prompt asks: entries for the listed turns with the context document, a context document, a summary. */
export function scriptedMemoryModel(options: ScriptedMemoryOptions = {}, calls = 400) {
  const model = fakeModel();
  for (let i = 0; i < calls; i++)
    model.respond((messages) => withUsage(answerMemoryPrompt(messages, options), options.tokens));
  return model;
}

function withUsage(reply: AIMessage, tokens: ScriptedMemoryOptions["tokens"]): AIMessage {
  if (!tokens) return reply;
  return new AIMessage({
    content: reply.content,
    tool_calls: reply.tool_calls ?? [],
    usage_metadata: {
      input_tokens: tokens.input,
      output_tokens: tokens.output,
      total_tokens: tokens.input + tokens.output,
    },
  });
}

export function operationOf(prompt: string): MemoryOperation {
  if (prompt.includes("Current operation: ADD_ENTRY + CONTEXT_SYNTHESIS")) return "add_entry+put_context";
  if (prompt.includes("Current operation: ADD_ENTRY")) return "add_entry";
  if (prompt.includes("Current operation: CONTEXT_SYNTHESIS")) return "put_context";
  return "summary";
}

function answerMemoryPrompt(messages: BaseMessage[], options: ScriptedMemoryOptions): AIMessage {
  const prompt = String(messages[0]?.content ?? "");
  const operation = operationOf(prompt);
  options.onCall?.(operation);
  if (operation === "add_entry" || operation === "add_entry+put_context") {
    const turns = prompt.split(/\nTurn \d+:\n/).slice(1);
    const entries = turns.map((turn, index) => {
      const user = /^user: ([^\n]*)/.exec(turn)?.[1] ?? "";
      const answer = /\nbot: ([^\n]*)/.exec(turn)?.[1];
      return {
        turn: index + 1,
        summary: `Noted: ${user.slice(0, 40)}`,
        ...(answer ? { answer_summary: `Answered: ${answer.slice(0, 40)}` } : {}),
        tags: ["chat"],
      };
    });
    const entry = { name: "add_entry", args: { entries } };
    const context = {
      name: "put_context",
      args: { content: options.context ?? "Context: the user and the bot talk about the weekly numbers." },
    };
    return toolCalls(operation === "add_entry" ? [entry] : [entry, context]);
  }
  if (operation === "put_context")
    return toolCall("put_context", {
      content: options.context ?? "Context: the user and the bot talk about the weekly numbers.",
    });
  return new AIMessage(options.summary ?? "The user and the bot discussed the weekly numbers.");
}

export function toolCall(name: string, args: Record<string, unknown>): AIMessage {
  return toolCalls([{ name, args }]);
}

export function toolCalls(calls: ReadonlyArray<{ name: string; args: Record<string, unknown> }>): AIMessage {
  return new AIMessage({
    content: "",
    tool_calls: calls.map(({ name, args }) => ({ id: randomUUID(), name, args, type: "tool_call" as const })),
  });
}

/** A team model answering every call with `answer(messages)`. */
export function scriptedTeamModel(answer: (messages: BaseMessage[]) => BaseMessage | string, calls = 400) {
  const model = fakeModel();
  for (let i = 0; i < calls; i++) {
    model.respond((messages) => {
      const reply = answer(messages);
      return typeof reply === "string" ? new AIMessage(reply) : reply;
    });
  }
  return model;
}

/** Characters of everything a model call received: what grows when history grows. */
export function promptChars(call: { messages: BaseMessage[] } | undefined): number {
  return (call?.messages ?? []).reduce((total, message) => total + JSON.stringify(message.content).length, 0);
}

export interface MemoryHarnessOptions {
  readonly store: Store;
  readonly storeUrl: string;
  readonly checkpointer: BaseCheckpointSaver;
  readonly teamModel: BaseChatModel;
  readonly memoryModel: BaseChatModel;
  readonly summaryModel?: BaseChatModel;
  readonly config?: MemoryConfigInput;
  readonly clock: Clock;
  readonly supervisorTools?: string[];
  /** "delivered: <line>" is pushed here whenever the console prints a reply. */
  readonly events?: string[];
  /** Memory work into the run-steps log (the CLI passes its observability's). */
  readonly recorder?: MemoryWorkRecorder | undefined;
}

/** The real engine and team behind the console adapter, wired with memory exactly as the CLI does. */
export async function startMemoryHarness(options: MemoryHarnessOptions) {
  const memory = createMemory({
    store: options.store,
    storeUrl: options.storeUrl,
    checkpointer: options.checkpointer,
    model: options.memoryModel,
    ...(options.summaryModel ? { summaryModel: options.summaryModel } : {}),
    config: options.config ?? {},
    clock: options.clock,
    recorder: options.recorder,
  });
  const team = new Team({
    config: {
      supervisor: { prompt: "Answer the user.", model: "sup", tools: options.supervisorTools ?? [] },
      specialists: [],
    },
    routing: { sticky: true },
    limits: { maxIterations: 20, maxRepeatedToolCalls: 5, wallTimeSeconds: 600 },
    checkpointer: options.checkpointer,
    store: options.store,
    modelFor: () => options.teamModel,
    describeModel: () => "scripted",
    tools: { ...memory.tools },
    contextFor: memory.contextFor,
    beforeRun: memory.beforeRun,
  });
  memory.attach(team);
  const { engine, printed, say } = await startConsoleEngine({
    store: options.store,
    responder: team,
    commands: [...team.commands, ...memory.commands],
    observers: [memory.observer],
    onPrint: (line) => options.events?.push(`delivered: ${line}`),
  });
  return {
    engine,
    team,
    memory,
    printed,
    /** Types a line and waits for the reply (not for memory work: see `settle`). */
    say,
    /** Waits until queued memory work is done. */
    settle: () => memory.idle(),
    async stop(): Promise<void> {
      await engine.stop();
      await memory.close();
    },
  };
}

export const MEMORY_TEST_KEY = "console:main";
export const MINUTE = 60_000;

/** A clock the test moves by hand: idle time passes without waiting. */
export function manualClock(start = Date.UTC(2025, 0, 6, 9)) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** The text of the last human message a model call received. */
export const lastHuman = (messages: BaseMessage[]) =>
  String(messages.filter((m) => HumanMessage.isInstance(m)).at(-1)?.content ?? "");

/** Which memory operation each call of a scripted memory model was asked for. */
export const operations = (model: ReturnType<typeof fakeModel>) =>
  model.calls.map((call) => operationOf(String(call.messages[0]?.content ?? "")));
