import { measureAcks } from "./acks.ts";
import { measureAttachments } from "./attachments.ts";
import { measureHeap } from "./heap.ts";
import { measureLongThread } from "./long-thread.ts";
import { measureMcpTools } from "./mcp-tools.ts";
import { measureMemoryCost } from "./memory-cost.ts";
import { measureModelLatency } from "./model-latency.ts";
import { measureOverhead } from "./overhead.ts";
import { measurePromptSize } from "./prompt-size.ts";
import { measureScaleOut } from "./scale-out.ts";
import { measureSchedules } from "./schedules.ts";
import { measureSlackSideBySide } from "./slack-side-by-side.ts";
import { measureSoak } from "./soak.ts";
import { measureStartup } from "./startup.ts";
import { measureSticky } from "./sticky.ts";
import { measureStoreGrowth } from "./store-growth.ts";
import { measureStreaming } from "./streaming.ts";
import type { Figure } from "./support/figures.ts";
import { measureTasks } from "./tasks.ts";
import { measureThroughput } from "./throughput.ts";
import { measureWorkerTakeover } from "./worker-takeover.ts";

export interface Group {
  readonly measure: () => Promise<Figure[]>;
  /** The child is stopped after this long: `pnpm bench` must finish in 10 minutes on 2 cores. */
  readonly limitSeconds: number;
  /** Extra Node flags for this group's child process. */
  readonly nodeFlags?: readonly string[];
}

/**
 * Every measurement group, in the order the table lists them. Loops that could run long on a
 * busy machine are time-boxed (the figure then says on how many samples it rests); the limits
 * here only catch a hang.
 */
export const GROUPS = {
  overhead: { measure: () => measureOverhead({ timeBoxMs: 60_000 }), limitSeconds: 150 },
  throughput: {
    measure: () => measureThroughput({ timeBoxMs: 45_000, memoryTimeBoxMs: 20_000 }),
    limitSeconds: 180,
  },
  "long-thread": { measure: measureLongThread, limitSeconds: 240 },
  sticky: { measure: measureSticky, limitSeconds: 120 },
  "prompt-size": { measure: measurePromptSize, limitSeconds: 240 },
  "memory-cost": { measure: measureMemoryCost, limitSeconds: 120 },
  heap: {
    measure: () => measureHeap({ timeBoxMs: 75_000, memoryTimeBoxMs: 25_000 }),
    limitSeconds: 200,
    // V8 otherwise drops the bytecode of functions idle for a while, shrinking the heap by a few MB
    // mid-measurement: data per conversation would read as negative.
    nodeFlags: ["--no-flush-bytecode"],
  },
  startup: { measure: measureStartup, limitSeconds: 120 },
  acks: { measure: measureAcks, limitSeconds: 180 },
  // Four bursts and two runs of the real CLI, then six bursts beside the Chat SDK bot (~20 s each): ~4 min.
  "model-latency": { measure: measureModelLatency, limitSeconds: 480 },
  streaming: { measure: measureStreaming, limitSeconds: 180 },
  "slack-side-by-side": {
    // 15 runs (5 set-ups × 3 rounds), each a fresh process: ~20 s each on a quiet machine, ~40 s on a loaded one.
    measure: () => measureSlackSideBySide({ rounds: 3, sequentialBoxMs: 5_000, concurrentBoxMs: 8_000 }),
    limitSeconds: 900,
  },
  "store-growth": { measure: () => measureStoreGrowth({ timeBoxMs: 20_000 }), limitSeconds: 240 },
  "mcp-tools": { measure: () => measureMcpTools({ timeBoxMs: 30_000 }), limitSeconds: 120 },
  "scale-out": { measure: measureScaleOut, limitSeconds: 480 },
  "worker-takeover": { measure: measureWorkerTakeover, limitSeconds: 420 },
  tasks: { measure: () => measureTasks({ timeBoxMs: 30_000 }), limitSeconds: 180 },
  attachments: { measure: measureAttachments, limitSeconds: 180 },
  schedules: { measure: measureSchedules, limitSeconds: 240 },
  // Last: minutes of sustained traffic (a compressed day); `pnpm bench --only soak` runs it alone.
  soak: { measure: () => measureSoak({ timeBoxMs: 480_000 }), limitSeconds: 720 },
} satisfies Record<string, Group>;

export type GroupName = keyof typeof GROUPS;
