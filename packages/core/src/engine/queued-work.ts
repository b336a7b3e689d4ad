import type { InboundMessage } from "../conversation/messages.ts";
import type { Continuation } from "./responder.ts";

/** One item of a conversation's durable queue. */
export type QueuedWork =
  | { readonly kind: "message"; readonly message: InboundMessage }
  | { readonly kind: "continuation"; readonly continuation: Continuation };

export function encodeWork(work: QueuedWork): string {
  if (work.kind === "message") {
    // The platform's raw event is not persisted: it may not serialise, and delivery never needs it.
    const { raw: _raw, ...message } = work.message;
    return JSON.stringify({ kind: "message", message });
  }
  return JSON.stringify(work);
}

export function decodeWork(item: string): QueuedWork {
  const parsed = JSON.parse(item) as QueuedWork;
  if (parsed.kind !== "message" && parsed.kind !== "continuation")
    throw new Error(`unknown queued work: ${item.slice(0, 80)}`);
  return parsed;
}

/**
 * Groups queued items into units run one after another: consecutive messages become one turn
 * (several only under the collect policy), each continuation runs alone.
 */
export function groupWork(
  items: readonly QueuedWork[],
): ({ kind: "messages"; messages: InboundMessage[] } | QueuedWork)[] {
  const groups: ({ kind: "messages"; messages: InboundMessage[] } | QueuedWork)[] = [];
  for (const work of items) {
    const last = groups.at(-1);
    if (work.kind === "message" && last?.kind === "messages") last.messages.push(work.message);
    else groups.push(work.kind === "message" ? { kind: "messages", messages: [work.message] } : work);
  }
  return groups;
}
