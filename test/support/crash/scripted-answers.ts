/**
 * What the model stub answers in crash tests: each answer repeats the question's token, so every
 * post can be traced to the message it answers. A long answer is three paragraphs of about 3,000
 * characters: more than one Slack message holds, so it is posted as exactly three chunks.
 */
import { type ChatRequest, type StubReply, textOf } from "../model/chat-request.ts";

const TOKEN = /\b([qt]\d{3}(?:m\d{2})?)\b/;

/** The token of the latest user message that has one (tool follow-up runs may add other messages). */
export function tokenOf(request: ChatRequest): string {
  for (const message of [...request.body.messages].reverse()) {
    if (message.role !== "user") continue;
    const found = TOKEN.exec(textOf(message.content))?.[1];
    if (found) return found;
  }
  return "unknown";
}

export const shortAnswer = (token: string) => `Here is your answer for ${token}.`;

const LONG_PARTS = 3;
const FILLER = "This sentence stands in for a long and careful explanation. ".repeat(50).trim();

export function longAnswer(token: string): string {
  return Array.from({ length: LONG_PARTS }, (_, index) => `Part ${index + 1} of ${token}: ${FILLER}`).join(
    "\n\n",
  );
}

/** The texts one complete answer consists of (each in exactly one post). */
export const shortParts = (token: string) => [shortAnswer(token)];
export const longParts = (token: string) =>
  Array.from({ length: LONG_PARTS }, (_, index) => `Part ${index + 1} of ${token}:`);

export function answerWith(
  text: (token: string) => string,
  extra: { latencyMs?: number } = {},
): (request: ChatRequest) => StubReply {
  return (request) => ({ kind: "answer", text: text(tokenOf(request)), ...extra });
}

export const tokens = (prefix: "q" | "t", count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(3, "0")}`);

/**
 * A model that refunds: it asks for `issue_refund` with the question's token as the order (after
 * `find_tools` when only that is offered), and answers once the refund's result is back.
 */
export function refundScript(request: ChatRequest): StubReply {
  const token = tokenOf(request);
  if (request.toolResults.has("issue_refund")) return { kind: "answer", text: refundDone(token) };
  if (request.toolNames.includes("issue_refund")) {
    return { kind: "answer", toolCalls: [{ name: "issue_refund", args: { order: token } }] };
  }
  if (request.toolNames.includes("find_tools")) {
    return { kind: "answer", toolCalls: [{ name: "find_tools", args: { query: "refund a payment" } }] };
  }
  return { kind: "answer", text: `No refund tool for ${token}.` };
}

export const refundDone = (token: string) => `Refund done for ${token}.`;
