/** What the model stub reads from one Chat Completions request, and what a script may answer. */
import type { IncomingHttpHeaders } from "node:http";

export interface ChatMessageIn {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: readonly { id: string; function: { name: string; arguments: string } }[];
  readonly tool_call_id?: string;
}

export interface ChatRequestBody {
  readonly model?: string;
  readonly messages: readonly ChatMessageIn[];
  readonly tools?: readonly { type: string; function: { name: string } }[];
  readonly stream?: boolean;
  readonly stream_options?: { include_usage?: boolean };
}

/** One request as a script sees it. */
export interface ChatRequest {
  /** From 0, in arrival order, over the stub's lifetime. */
  readonly index: number;
  readonly body: ChatRequestBody;
  readonly headers: IncomingHttpHeaders;
  /** The system prompt (the first system message), "" when there is none. */
  readonly system: string;
  /** The text of the last user message, "" when there is none. */
  readonly lastUserText: string;
  /** Names of the tools the caller offered. */
  readonly toolNames: readonly string[];
  /** The results of the tool calls the last assistant message asked for, by tool name. */
  readonly toolResults: ReadonlyMap<string, string>;
  readonly streamed: boolean;
}

export interface ToolCallOut {
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** Default: a fresh `call_<n>`. */
  readonly id?: string;
}

/** How the stub answers one request. */
export type StubReply =
  | {
      readonly kind: "answer";
      readonly text?: string;
      readonly toolCalls?: readonly ToolCallOut[];
      /** Before the response starts (headers included). */
      readonly latencyMs?: number;
      /** Streamed answers: between chunks. */
      readonly chunkDelayMs?: number;
      /** Streamed answers: after the response started (200 and headers sent), before any chunk. */
      readonly silentMs?: number;
    }
  /** Accepts the request and never answers; the connection stays open until the caller gives up. */
  | { readonly kind: "hang" }
  | {
      readonly kind: "fail";
      readonly status: number;
      readonly retryAfterSeconds?: number;
      readonly latencyMs?: number;
    };

export const answer = (text: string, extra: Omit<Extract<StubReply, { kind: "answer" }>, "kind"> = {}) =>
  ({ kind: "answer", text, ...extra }) as const satisfies StubReply;
export const callTools = (
  toolCalls: readonly ToolCallOut[],
  extra: Omit<Extract<StubReply, { kind: "answer" }>, "kind" | "toolCalls"> = {},
) => ({ kind: "answer", toolCalls, ...extra }) as const satisfies StubReply;
export const hang = () => ({ kind: "hang" }) as const satisfies StubReply;
export const fail = (status: number, retryAfterSeconds?: number) =>
  ({
    kind: "fail",
    status,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  }) as const satisfies StubReply;

export function readChatRequest(index: number, raw: string, headers: IncomingHttpHeaders): ChatRequest {
  const body = JSON.parse(raw) as ChatRequestBody;
  const messages = body.messages ?? [];
  const system = messages.find((message) => message.role === "system");
  const lastUser = messages.findLast((message) => message.role === "user");
  const lastAsk = messages.findLastIndex((message) => (message.tool_calls?.length ?? 0) > 0);
  const asked = new Map((messages[lastAsk]?.tool_calls ?? []).map((call) => [call.id, call.function.name]));
  const toolResults = new Map<string, string>();
  for (const message of messages.slice(lastAsk + 1)) {
    const name = message.tool_call_id ? asked.get(message.tool_call_id) : undefined;
    if (message.role === "tool" && name) toolResults.set(name, textOf(message.content));
  }
  return {
    index,
    body,
    headers,
    system: system ? textOf(system.content) : "",
    lastUserText: lastUser ? textOf(lastUser.content) : "",
    toolNames: (body.tools ?? []).map((tool) => tool.function.name),
    toolResults,
    streamed: body.stream === true,
  };
}

/** Content is a string or a list of parts (`{ type: "text", text }`). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === "object" && part !== null && "text" in part && typeof part.text === "string"
          ? part.text
          : "",
      )
      .join("");
  }
  return "";
}
