/**
 * The built-in `offline` chat model: no key, no network, same input → same output. It exists so
 * the whole pipeline (routing, handoffs, delivery, accounting) runs before anyone configures a
 * real model, and every reply says so.
 *
 * What it does, in order:
 * 1. If a tool result (ToolMessage) already follows the latest user message, the handoff of this
 *    turn has happened: it answers, so a turn can never bounce between agents.
 * 2. Else, asked for the date or time, it quotes the date line its system prompt ends with (the
 *    answer is in its prompt: no handoff, no task).
 * 3. Else, if handoff tools (`transfer_to_<agent>`) are bound and the latest user message shares a
 *    word with one of their descriptions, it calls the best-matching one (see offline-routing.ts).
 * 4. Else, if `start_task` is bound and the user asks for work "in the background", it starts a
 *    task with the message as its instructions (so background tasks can be tried without a key).
 * 5. Else it answers with a templated, clearly marked reply that quotes the user; inside a
 *    background task (its system prompt says so) the reply is the task's templated result.
 *
 * The name it answers as: the `agentName` option if given, else the first line of the system
 * prompt when it reads `You are <name>…`, else "assistant".
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage, type ToolCall } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { convertToOpenAITool, isLangChainTool } from "@langchain/core/utils/function_calling";
import {
  agentNameFromSystemPrompt,
  handoffTarget,
  isHandoffTool,
  pickHandoffTool,
  type ToolSummary,
} from "./offline-routing.ts";

export interface OfflineTool extends ToolSummary {
  /** JSON schema of the arguments, used to fill required string arguments of a handoff call. */
  readonly parameters?: Record<string, unknown>;
}

export interface OfflineChatModelCallOptions extends BaseChatModelCallOptions {
  tools?: OfflineTool[];
}

export interface OfflineChatModelOptions extends BaseChatModelParams {
  /** The name replies are signed with; wins over the name read from the system prompt. */
  agentName?: string;
}

const EXCERPT_LIMIT = 200;

export class OfflineChatModel extends BaseChatModel<OfflineChatModelCallOptions> {
  readonly agentName: string | undefined;

  static override lc_name(): string {
    return "OfflineChatModel";
  }

  constructor(options: OfflineChatModelOptions = {}) {
    super(options);
    this.agentName = options.agentName;
  }

  _llmType(): string {
    return "offline";
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    yield* streamWordByWord(await this._generate(messages, options), runManager);
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<OfflineChatModelCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, OfflineChatModelCallOptions> {
    return this.withConfig({ ...kwargs, tools: tools.map(summarizeTool) });
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const tools = options.tools ?? [];
    const lastHumanIndex = messages.findLastIndex((message) => message.type === "human");
    const userText = lastHumanIndex === -1 ? undefined : messages[lastHumanIndex]!.text;
    const toolResultThisTurn = messages.slice(lastHumanIndex + 1).some((message) => message.type === "tool");
    const fingerprint = fingerprintOf(messages, tools);

    const freshText = userText !== undefined && !toolResultThisTurn ? userText : undefined;
    // Asked for the date, any agent answers from its prompt at once: no handoff, no task.
    const today = userText !== undefined && asksForTheDate(userText) ? dateLine(messages) : undefined;
    const backgroundTask =
      freshText !== undefined && !today ? startTaskCall(freshText, tools, fingerprint) : undefined;
    const handoff =
      freshText !== undefined && !backgroundTask && !today ? pickHandoffTool(freshText, tools) : undefined;
    const toolCalls: ToolCall[] = [];
    let content: string;
    if (backgroundTask) {
      toolCalls.push(backgroundTask);
      content = "";
    } else if (handoff !== undefined) {
      const tool = tools.find((candidate) => candidate.name === handoff)!;
      toolCalls.push({
        type: "tool_call",
        id: `offline_call_${fingerprint}`,
        name: handoff,
        args: handoffArguments(tool, userText ?? ""),
      });
      content = "";
    } else if (startedTask(messages, lastHumanIndex)) {
      content = `[offline model] ${startedTask(messages, lastHumanIndex)}`;
    } else if (today) {
      content = `[offline model] ${this.agentName ?? nameFromPrompt(messages)} here. ${today}`;
    } else if (inBackgroundTask(messages)) {
      content = `[offline model] ${this.agentName ?? nameFromPrompt(messages)} finished the background task "${excerpt(userText ?? "")}". A real model would have worked through it step by step with its tools; configure one in switchboard.yaml.`;
    } else {
      content = replyText(this.agentName ?? nameFromPrompt(messages), userText, tools, toolResultThisTurn);
    }

    const inputChars = messages.reduce((sum, message) => sum + message.text.length, 0) + jsonLength(tools);
    const outputChars = content.length + (toolCalls.length > 0 ? jsonLength(toolCalls) : 0);
    const inputTokens = Math.ceil(inputChars / 4);
    const outputTokens = Math.ceil(outputChars / 4);
    const message = new AIMessage({
      id: `offline_${fingerprint}`,
      content,
      tool_calls: toolCalls,
      usage_metadata: {
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        total_tokens: inputTokens + outputTokens,
      },
      response_metadata: { model_name: "offline", model_provider: "offline" },
    });
    return {
      generations: [{ text: content, message }],
      llmOutput: {
        tokenUsage: {
          promptTokens: inputTokens,
          completionTokens: outputTokens,
          totalTokens: inputTokens + outputTokens,
        },
      },
    };
  }
}

/**
 * The same reply as `_generate`, streamed the way real models stream: the text word by word (each
 * word a token to callbacks), a tool call in one piece, usage on the last chunk.
 */
async function* streamWordByWord(
  result: ChatResult,
  runManager: CallbackManagerForLLMRun | undefined,
): AsyncGenerator<ChatGenerationChunk> {
  const message = result.generations[0]?.message;
  if (!message || !AIMessage.isInstance(message)) return;
  const text = typeof message.content === "string" ? message.content : message.text;
  const words = text.match(/\S+\s*/g) ?? [];
  const last = Math.max(words.length - 1, 0);
  for (let index = 0; index <= last; index++) {
    const word = words[index] ?? "";
    const chunk = new AIMessageChunk({
      content: word,
      ...(index === 0 && message.id ? { id: message.id } : {}),
      ...(index === last
        ? {
            tool_call_chunks: (message.tool_calls ?? []).map((call, position) => ({
              type: "tool_call_chunk" as const,
              name: call.name,
              args: JSON.stringify(call.args),
              ...(call.id ? { id: call.id } : {}),
              index: position,
            })),
            ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
            response_metadata: message.response_metadata,
          }
        : {}),
    });
    yield new ChatGenerationChunk({ text: word, message: chunk });
    if (word !== "") await runManager?.handleLLMNewToken(word);
  }
}

/** Work asked for "in the background", when the agent can start tasks: a start_task call. */
function startTaskCall(
  text: string,
  tools: readonly OfflineTool[],
  fingerprint: string,
): ToolCall | undefined {
  if (!tools.some((tool) => tool.name === "start_task")) return undefined;
  if (!/\b(in the background|background task)\b/i.test(text)) return undefined;
  const title = text
    .replace(/\b(please|in the background|as a background task|background task)\b/gi, " ")
    .replace(/\s+/g, " ")
    .trim()
    .split(" ")
    .slice(0, 8)
    .join(" ");
  return {
    type: "tool_call",
    id: `offline_call_${fingerprint}`,
    name: "start_task",
    args: { title: title === "" ? "Background task" : title, instructions: text },
  };
}

/** What start_task answered in this turn, passed on to the user as is. */
function startedTask(messages: readonly BaseMessage[], lastHumanIndex: number): string | undefined {
  const result = messages
    .slice(lastHumanIndex + 1)
    .findLast((message) => message.type === "tool" && message.name === "start_task");
  return result?.text;
}

/** "what's the date?", "what time is it", "which day is today". */
function asksForTheDate(text: string): boolean {
  return /\b(what|which)\b.{0,20}\b(date|time|day)\b/i.test(text) || /\btoday'?s date\b/i.test(text);
}

/** The date line agents' prompts end with (situation/situation.ts), when there is one. */
function dateLine(messages: readonly BaseMessage[]): string | undefined {
  const system = messages.find((message) => message.type === "system");
  return system?.text.split("\n").find((line) => line.startsWith("Current date and time:"));
}

/** The system prompt of a background task's step (tasks/task-prompt.ts). */
function inBackgroundTask(messages: readonly BaseMessage[]): boolean {
  const system = messages.find((message) => message.type === "system");
  return system?.text.includes("working alone on a background task") === true;
}

function nameFromPrompt(messages: readonly BaseMessage[]): string {
  const system = messages.find((message) => message.type === "system");
  return (system && agentNameFromSystemPrompt(system.text)) ?? "assistant";
}

/**
 * The header lines core's attachments put after the user's words (format owned by
 * attachments/file-lines.ts): `[Image attached: shot.png · image/png · 34 KB — …]`, each optionally
 * followed by its text between `<<<` and `>>>` lines.
 */
const FILE_HEADER = /^\[(?:Image|File|Voice note|Audio file) attached: (.+?) — (.+)\]$/;
const FIRST_WORDS = 8;

interface FileMention {
  readonly about: string;
  readonly note: string;
  readonly firstWords?: string;
}

/** The user's own words, and the files the message carried. */
function splitFiles(userText: string): { words: string; files: FileMention[] } {
  const lines = userText.split("\n");
  const first = lines.findIndex((line) => FILE_HEADER.test(line));
  if (first === -1) return { words: userText, files: [] };
  const files: FileMention[] = [];
  for (let index = first; index < lines.length; index++) {
    const match = FILE_HEADER.exec(lines[index] ?? "");
    if (!match) continue;
    let firstWords: string | undefined;
    if (lines[index + 1] === "<<<") {
      const end = lines.indexOf(">>>", index + 2);
      const words = lines
        .slice(index + 2, end === -1 ? undefined : end)
        .join(" ")
        .split(/\s+/)
        .filter(Boolean);
      firstWords = words.slice(0, FIRST_WORDS).join(" ") + (words.length > FIRST_WORDS ? "…" : "");
    }
    files.push({ about: match[1] ?? "", note: match[2] ?? "", ...(firstWords ? { firstWords } : {}) });
  }
  return { words: lines.slice(0, first).join("\n").trim(), files };
}

/** `I received shot.png · image/png · 34 KB (an image) and notes.txt · … (it begins: "…").` */
function acknowledgeFiles(files: readonly FileMention[]): string {
  if (files.length === 0) return "";
  const each = files.map((file) => {
    if (file.firstWords !== undefined) return `${file.about} (it begins: "${file.firstWords}")`;
    if (file.note.startsWith("not read: ")) return `${file.about} (${file.note})`;
    return `${file.about} (an image I cannot look at offline)`;
  });
  return ` I received ${each.join("; ")}.`;
}

function replyText(
  agentName: string,
  userText: string | undefined,
  tools: readonly OfflineTool[],
  toolResultThisTurn: boolean,
): string {
  const { words, files } = userText === undefined ? { words: undefined, files: [] } : splitFiles(userText);
  const said =
    words === undefined
      ? "There is no message to answer yet."
      : words === ""
        ? "You sent files without words."
        : `You said: "${excerpt(words)}".`;
  const specialists = tools
    .filter((tool) => isHandoffTool(tool.name))
    .map((tool) => handoffTarget(tool.name))
    .filter((agent) => agent !== "supervisor");
  // Explains a missing handoff, so someone trying the offline team knows how routing works.
  const hint =
    specialists.length > 0 && !toolResultThisTurn
      ? ` No specialist matched your words (specialists: ${specialists.join(", ")}).`
      : "";
  return `[offline model] ${agentName} here. ${said}${acknowledgeFiles(files)}${hint} Configure a real model in switchboard.yaml for real answers.`;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= EXCERPT_LIMIT ? flat : `${flat.slice(0, EXCERPT_LIMIT - 1)}…`;
}

/** Required string arguments get the user's words (a handoff `reason`/`task`); nothing else is invented. */
function handoffArguments(tool: OfflineTool, userText: string): Record<string, string> {
  const properties = tool.parameters?.properties;
  const required = tool.parameters?.required;
  if (!isRecord(properties) || !Array.isArray(required)) return {};
  const args: Record<string, string> = {};
  for (const key of required) {
    const property = typeof key === "string" ? properties[key] : undefined;
    if (isRecord(property) && property.type === "string") args[key as string] = userText;
  }
  return args;
}

function summarizeTool(tool: BindToolsInput): OfflineTool {
  if (isLangChainTool(tool)) {
    const { function: fn } = convertToOpenAITool(tool);
    return { name: fn.name, description: fn.description ?? "", parameters: asRecord(fn.parameters) };
  }
  const definition = isRecord(tool) && isRecord(tool.function) ? tool.function : tool;
  if (isRecord(definition) && typeof definition.name === "string") {
    const description = typeof definition.description === "string" ? definition.description : "";
    const parameters = asRecord(definition.parameters ?? definition.input_schema ?? definition.schema);
    return { name: definition.name, description, parameters };
  }
  throw new TypeError(`offline model cannot read this tool definition: ${JSON.stringify(tool)}`);
}

/** FNV-1a over everything the reply depends on: ids stay stable for equal input, differ otherwise. */
function fingerprintOf(messages: readonly BaseMessage[], tools: readonly OfflineTool[]): string {
  const parts = messages.map((message) => `${message.type}\u0001${message.text}`);
  parts.push(...tools.map((tool) => tool.name));
  let hash = 0x811c9dc5;
  for (const char of parts.join("\u0000")) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

function jsonLength(value: unknown): number {
  return JSON.stringify(value).length;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
