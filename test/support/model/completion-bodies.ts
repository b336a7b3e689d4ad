/**
 * Chat Completions responses as OpenAI sends them: one JSON body, or Server-Sent Events with
 * `chat.completion.chunk` deltas, a usage chunk when `stream_options.include_usage` asks for one,
 * and `data: [DONE]`. Usage figures are rough token counts (4 characters a token), never zero.
 */
import type { ChatRequest, ToolCallOut } from "./chat-request.ts";

export interface Completion {
  readonly id: string;
  readonly text: string;
  readonly toolCalls: readonly Required<ToolCallOut>[];
}

export interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

export function usageOf(request: ChatRequest, completion: Completion): Usage {
  const promptChars = JSON.stringify(request.body.messages).length;
  const completionChars = completion.text.length + JSON.stringify(completion.toolCalls).length;
  const prompt_tokens = Math.max(1, Math.ceil(promptChars / 4));
  const completion_tokens = Math.max(1, Math.ceil(completionChars / 4));
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

const created = () => Math.floor(Date.now() / 1000);
const finishReason = (completion: Completion) => (completion.toolCalls.length > 0 ? "tool_calls" : "stop");

export function completionBody(request: ChatRequest, completion: Completion): Record<string, unknown> {
  return {
    id: completion.id,
    object: "chat.completion",
    created: created(),
    model: request.body.model ?? "stub",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: completion.toolCalls.length > 0 && completion.text === "" ? null : completion.text,
          ...(completion.toolCalls.length > 0
            ? {
                tool_calls: completion.toolCalls.map((call) => ({
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: JSON.stringify(call.args) },
                })),
              }
            : {}),
        },
        finish_reason: finishReason(completion),
      },
    ],
    usage: usageOf(request, completion),
  };
}

/** The SSE events of a streamed answer, each a complete `data: …\n\n` line, in order. */
export function streamEvents(request: ChatRequest, completion: Completion, pieces = 3): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    sse({
      id: completion.id,
      object: "chat.completion.chunk",
      created: created(),
      model: request.body.model ?? "stub",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const events = [chunk({ role: "assistant", content: "" }, null)];
  for (const piece of splitText(completion.text, pieces)) events.push(chunk({ content: piece }, null));
  completion.toolCalls.forEach((call, index) => {
    events.push(
      chunk(
        {
          tool_calls: [
            {
              index,
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: JSON.stringify(call.args) },
            },
          ],
        },
        null,
      ),
    );
  });
  events.push(chunk({}, finishReason(completion)));
  if (request.body.stream_options?.include_usage) {
    events.push(
      sse({
        id: completion.id,
        object: "chat.completion.chunk",
        created: created(),
        model: request.body.model ?? "stub",
        choices: [],
        usage: usageOf(request, completion),
      }),
    );
  }
  events.push("data: [DONE]\n\n");
  return events;
}

function sse(payload: Record<string, unknown>): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

function splitText(text: string, pieces: number): string[] {
  if (text === "") return [];
  const size = Math.ceil(text.length / pieces);
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}
