import type { RunnableConfig } from "@langchain/core/runnables";

/**
 * Who a tool call serves, read from the run's configurable. Outside systems get it with every call
 * so a long job can report back through `POST /webhooks/runs` and a retried call can be recognised.
 */
export interface ToolRequestContext {
  /** The request record (one per user message); what `POST /webhooks/runs` takes as `requestId`. */
  readonly requestId?: string;
  readonly runId?: string;
  /** The conversation key (the LangGraph thread id). */
  readonly conversation?: string;
  /** `<runId>:<toolCallId>`: the same for a retry of the same call, different for any other call. */
  readonly idempotencyKey?: string;
}

/** The header names, one place: docs/reference/http-endpoints.md documents them. */
export const REQUEST_CONTEXT_HEADERS = {
  requestId: "X-Switchboard-Request-Id",
  runId: "X-Switchboard-Run-Id",
  conversation: "X-Switchboard-Conversation",
  idempotencyKey: "Idempotency-Key",
} as const satisfies Record<keyof ToolRequestContext, string>;

type ConfigWithToolCall = RunnableConfig & { toolCall?: { id?: string } };

export function toolRequestContext(config: RunnableConfig | undefined): ToolRequestContext {
  const configurable = config?.configurable ?? {};
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const requestId = text(configurable.request_id);
  const runId = text(configurable.run_id);
  const conversation = text(configurable.thread_id);
  const toolCallId = text(configurable.tool_call_id) ?? text((config as ConfigWithToolCall)?.toolCall?.id);
  return {
    ...(requestId ? { requestId } : {}),
    ...(runId ? { runId } : {}),
    ...(conversation ? { conversation } : {}),
    ...(runId && toolCallId ? { idempotencyKey: `${runId}:${toolCallId}` } : {}),
  };
}

/** The context as HTTP headers; absent values send no header. */
export function requestContextHeaders(context: ToolRequestContext): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [field, header] of Object.entries(REQUEST_CONTEXT_HEADERS)) {
    const value = context[field as keyof ToolRequestContext];
    if (value) headers[header] = asciiHeaderValue(value);
  }
  return headers;
}

/** Headers carry printable ASCII only; conversation keys may hold other characters (a terminal thread's name). */
function asciiHeaderValue(value: string): string {
  return value.replace(/[^\x20-\x7e]+/gu, (run) => encodeURIComponent(run));
}
