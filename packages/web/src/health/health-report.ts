import type { EngineHealth } from "@switchboard/core";
import type { EndpointState, WorkQueueCounts } from "@switchboard/core/host";
import type { AtomicStore } from "@switchboard/core/records";
import type { PlatformActivity, PlatformState } from "./platform-activity.ts";
import type { LoggedProblem, RecentProblems } from "./recent-problems.ts";

export interface QueueState {
  readonly key: string;
  readonly depth: number;
  /** Age of the oldest queued message; absent when the oldest item is not a message. */
  readonly oldestAgeMs?: number;
}

export interface HealthReport {
  readonly version: string;
  readonly startedAt: number;
  readonly now: number;
  readonly platforms: readonly PlatformState[];
  readonly queues: readonly QueueState[];
  readonly runningTurns: readonly { key: string; since: number }[];
  /** Times this process found a conversation locked by another instance, since start. */
  readonly lockWaits: number;
  /** Turns in progress, the ceiling, and what decides how many compute at once. */
  readonly capacity: CapacityState;
  /** Each model endpoint called so far: its adaptive limit, calls in flight and in line. */
  readonly modelEndpoints: readonly EndpointState[];
  readonly recentProblems: readonly LoggedProblem[];
  /** Scale-out: the cluster's drain jobs by state; absent for role `all`. */
  readonly workQueue?: WorkQueueCounts;
}

export interface CapacityState {
  /** Turns in progress in this process: computing, or waiting on a model or a tool. */
  readonly turnsInProgress: number;
  /** The ceiling on turns in progress (engine.maxConcurrentTurns). */
  readonly maxTurns: number;
  /** Conversations whose next turn waits to start (the ceiling, or a CPU slot). */
  readonly waitingToStart: number;
  readonly cpuSlots: EngineHealth["cpuSlots"];
  readonly eventLoop: EngineHealth["eventLoop"];
}

/** The engine keeps each conversation's pending work in the durable queue `queue:<key>`. */
const QUEUE_PREFIX = "queue:";

export interface HealthSources {
  readonly version: string;
  readonly startedAt: number;
  readonly atomic: AtomicStore;
  readonly activity: PlatformActivity;
  readonly problems: RecentProblems;
  readonly engine: () => Pick<
    EngineHealth,
    "lockWaits" | "runningTurns" | "maxTurns" | "waitingToStart" | "cpuSlots" | "eventLoop" | "modelEndpoints"
  >;
  /** Scale-out: the work queue's jobs by state (BullMQ). */
  readonly workQueue?: () => Promise<WorkQueueCounts>;
}

export async function healthReport(sources: HealthSources, now = Date.now()): Promise<HealthReport> {
  const queues: QueueState[] = [];
  for (const queue of await sources.atomic.nonEmptyQueues()) {
    if (!queue.startsWith(QUEUE_PREFIX)) continue;
    const depth = await sources.atomic.queueLength(queue);
    const oldest = sentAtOf((await sources.atomic.peek(queue))?.item ?? null);
    queues.push({
      key: queue.slice(QUEUE_PREFIX.length),
      depth,
      ...(oldest === undefined ? {} : { oldestAgeMs: now - oldest }),
    });
  }
  const engine = sources.engine();
  return {
    version: sources.version,
    startedAt: sources.startedAt,
    now,
    platforms: await sources.activity.states(now),
    queues: queues.sort((a, b) => (b.oldestAgeMs ?? 0) - (a.oldestAgeMs ?? 0)),
    runningTurns: sources.activity.runningTurns(),
    lockWaits: engine.lockWaits,
    capacity: {
      turnsInProgress: engine.runningTurns,
      maxTurns: engine.maxTurns,
      waitingToStart: engine.waitingToStart,
      cpuSlots: engine.cpuSlots,
      eventLoop: engine.eventLoop,
    },
    modelEndpoints: engine.modelEndpoints,
    recentProblems: sources.problems.list(),
    ...(sources.workQueue ? { workQueue: await sources.workQueue() } : {}),
  };
}

/** When the queued item is a user's message, the time it was sent; anything else is left alone. */
function sentAtOf(item: string | null): number | undefined {
  if (item === null) return undefined;
  try {
    const parsed: unknown = JSON.parse(item);
    if (typeof parsed !== "object" || parsed === null || !("message" in parsed)) return undefined;
    const message: unknown = parsed.message;
    if (typeof message !== "object" || message === null || !("sentAt" in message)) return undefined;
    return typeof message.sentAt === "number" ? message.sentAt : undefined;
  } catch {
    return undefined;
  }
}
