import { randomUUID } from "node:crypto";
import type { InboundMessage } from "../conversation/messages.ts";
import type { Continuation } from "./responder.ts";

/**
 * One item of a conversation's durable queue. `workId` names the work across attempts: the outbox
 * keeps its answer under it, so a retried item delivers what it already has instead of running again.
 */
export type QueuedWork = (
  | { readonly kind: "message"; readonly message: InboundMessage }
  | { readonly kind: "continuation"; readonly continuation: Continuation }
) & { readonly workId: string; readonly enqueuedAt: number };

export type NewWork =
  | { readonly kind: "message"; readonly message: InboundMessage }
  | { readonly kind: "continuation"; readonly continuation: Continuation };

/** A message's work id is derived from its platform id, so every instance names it the same. */
export function workIdOf(work: NewWork): string {
  return work.kind === "message"
    ? `m:${work.message.conversation.platform}:${work.message.id}`
    : `c:${work.continuation.id ?? randomUUID()}`;
}

export function encodeWork(work: NewWork, enqueuedAt: number): string {
  const envelope = { workId: workIdOf(work), enqueuedAt };
  if (work.kind === "message") {
    // The platform's raw event is not persisted: it may not serialise, and delivery never needs it.
    const { raw: _raw, ...message } = work.message;
    return JSON.stringify({ kind: "message", message, ...envelope });
  }
  return JSON.stringify({ ...work, ...envelope });
}

export function decodeWork(item: string): QueuedWork {
  const parsed = JSON.parse(item) as QueuedWork;
  if (parsed.kind !== "message" && parsed.kind !== "continuation")
    throw new Error(`unknown queued work: ${item.slice(0, 80)}`);
  // Items queued by earlier versions carry no envelope: name them by content so retries agree.
  if (parsed.workId !== undefined) return parsed;
  const workId =
    parsed.kind === "message"
      ? workIdOf(parsed)
      : `c:${parsed.continuation.requestId}:${parsed.continuation.type}`;
  return { ...parsed, workId, enqueuedAt: 0 };
}

export type WorkUnit =
  | { kind: "messages"; messages: InboundMessage[]; workId: string }
  | Extract<QueuedWork, { kind: "continuation" }>;

/**
 * Groups queued items into units run one after another: consecutive messages become one turn
 * (several only under the collect policy; the unit is named by its last message), each
 * continuation runs alone.
 */
export function groupWork(items: readonly QueuedWork[]): WorkUnit[] {
  const groups: WorkUnit[] = [];
  for (const work of items) {
    const last = groups.at(-1);
    if (work.kind === "message" && last?.kind === "messages") {
      last.messages.push(work.message);
      last.workId = work.workId;
    } else if (work.kind === "message")
      groups.push({ kind: "messages", messages: [work.message], workId: work.workId });
    else groups.push(work);
  }
  return groups;
}
