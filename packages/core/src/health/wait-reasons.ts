/**
 * Why conversations have been waiting long, in words an operator can act on. A conversation whose
 * turn waits for a model endpoint's capacity is reported as that, with the endpoint's limit — not
 * as a lock held by a dead process, which is a different problem with a different remedy.
 */

import type { CpuSlotsState } from "../capacity/cpu-slots.ts";
import type { EndpointState } from "../capacity/endpoint-limiter.ts";
import type { EventLoopSample } from "../capacity/event-loop-load.ts";
import type { LogFields } from "../runtime/logger.ts";

/** What a conversation with old queued work is waiting for, as this process sees it. */
export type WaitReason =
  /** Its turn runs here and a model call of it waits in the endpoint's line. */
  | { readonly kind: "model-endpoint"; readonly endpoint: EndpointState }
  /** Its next turn waits here for room to start. */
  | { readonly kind: "turn-start"; readonly admission: AdmissionView }
  /** Its turn runs here (model, tools, delivery), longer than the queue's patience. */
  | { readonly kind: "turn-running" }
  /** Another process holds its lock; this one tries again. */
  | { readonly kind: "lock-elsewhere" }
  /** Nobody here is on it: queued for a worker (scale-out), or just picked up. */
  | { readonly kind: "unclaimed" };

export interface AdmissionView {
  readonly turnsInProgress: number;
  readonly maxTurns: number;
  readonly cpu: CpuSlotsState;
  readonly eventLoop: EventLoopSample;
}

export interface StaleQueue {
  readonly key: string;
  readonly ageMs: number;
  readonly reason: WaitReason;
}

export interface WaitReport {
  readonly message: string;
  readonly fields: LogFields;
}

/** One report per reason (per endpoint for endpoint waits), most conversations first. */
export function describeWaits(stale: readonly StaleQueue[], lockTtlMs: number): WaitReport[] {
  const groups = new Map<string, StaleQueue[]>();
  for (const queue of stale) {
    const group = groupOf(queue.reason);
    groups.set(group, [...(groups.get(group) ?? []), queue]);
  }
  return [...groups.values()]
    .sort((a, b) => b.length - a.length)
    .map((queues) => {
      const first = queues[0] as StaleQueue;
      const fields: LogFields = {
        conversations: queues.length,
        oldestAgeMs: Math.max(...queues.map((queue) => queue.ageMs)),
        keys: queues.slice(0, 5).map((queue) => queue.key),
      };
      return { message: sentence(first.reason, queues.length, lockTtlMs), fields };
    });
}

function groupOf(reason: WaitReason): string {
  if (reason.kind === "model-endpoint") return `endpoint ${reason.endpoint.endpoint}`;
  if (reason.kind === "turn-start") return `start ${atCeiling(reason.admission) ? "ceiling" : "loop"}`;
  return reason.kind;
}

function atCeiling(admission: AdmissionView): boolean {
  return admission.turnsInProgress >= admission.maxTurns;
}

function sentence(reason: WaitReason, count: number, lockTtlMs: number): string {
  const n = count === 1 ? "1 conversation" : `${count} conversations`;
  switch (reason.kind) {
    case "model-endpoint": {
      const state = reason.endpoint;
      const pause =
        state.pausedUntil === undefined
          ? ""
          : `; paused by the provider's Retry-After for ${Math.ceil((state.pausedUntil - Date.now()) / 1000)} s more`;
      return `${n} waiting for the model endpoint ${state.endpoint} (limit ${state.limit}, ${state.inFlight} calls in flight, ${state.queued} queued${pause})`;
    }
    case "turn-start": {
      const { admission } = reason;
      if (atCeiling(admission))
        return `${n} waiting to start a turn: ${admission.turnsInProgress} turns in progress, the ceiling (engine.maxConcurrentTurns ${admission.maxTurns})`;
      return `${n} waiting to start a turn: the event loop is busy (delay p99 ${Math.round(admission.eventLoop.delayP99Ms)} ms, ${admission.cpu.inUse} of ${admission.cpu.limit} CPU slots in use)`;
    }
    case "turn-running":
      return `${n} behind a turn that is still running in this process (model, tool or delivery)`;
    case "lock-elsewhere":
      return `${n} waiting for a lock held by another process (stuck or dead? its lock expires within ${Math.round(lockTtlMs / 1000)} s unless it is renewed)`;
    case "unclaimed":
      return `${n} queued and not being answered by this process (waiting for a worker, or picked up just now)`;
  }
}
