import { describe, expect, it } from "vitest";
import type { EndpointState } from "../capacity/endpoint-limiter.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { RecoveryLoop } from "./recovery-loop.ts";
import type { WaitReason } from "./wait-reasons.ts";

const endpoint: EndpointState = {
  endpoint: "https://api.openai.com/v1",
  limit: 32,
  inFlight: 32,
  queued: 140,
  waitingConversations: ["slack:T:C:1", "slack:T:C:2"],
  congestion: { rate_limited: 9, overloaded: 0, timeout: 0 },
  reductions: 3,
};

const admission = {
  turnsInProgress: 2_000,
  maxTurns: 2_000,
  cpu: { limit: 16, inUse: 3, waiting: 0 },
  eventLoop: { delayP99Ms: 5, delayMaxMs: 9, utilization: 0.2 },
};

async function reportFor(reasons: Record<string, WaitReason>) {
  const logger = createMemoryLogger();
  const loop = new RecoveryLoop({
    scan: {
      recover: async () => [],
      queueAges: async () => Object.keys(reasons).map((key) => ({ key, ageMs: 120_000 })),
      whyWaiting: (key) => reasons[key] ?? { kind: "unclaimed" },
    },
    logger,
    intervalMs: 1_000,
    staleAfterMs: 60_000,
    lockTtlMs: 30_000,
  });
  await loop.runOnce();
  return logger.lines.filter((line) => line.level === "warn").map((line) => line.message);
}

describe("the recovery loop's report of conversations waiting long", () => {
  it("says they wait for the model endpoint, with its limit, not that a lock holder died", async () => {
    const lines = await reportFor({
      "slack:T:C:1": { kind: "model-endpoint", endpoint },
      "slack:T:C:2": { kind: "model-endpoint", endpoint },
    });
    expect(lines).toEqual([
      "2 conversations waiting for the model endpoint https://api.openai.com/v1 (limit 32, 32 calls in flight, 140 queued)",
    ]);
  });

  it("tells each reason apart: the ceiling, a busy event loop, a lock held elsewhere", async () => {
    const lines = await reportFor({
      a: { kind: "turn-start", admission },
      b: { kind: "turn-start", admission },
      c: { kind: "lock-elsewhere" },
      d: {
        kind: "turn-start",
        admission: {
          ...admission,
          turnsInProgress: 40,
          eventLoop: { ...admission.eventLoop, delayP99Ms: 180 },
        },
      },
    });
    expect(lines).toEqual([
      "2 conversations waiting to start a turn: 2000 turns in progress, the ceiling (engine.maxConcurrentTurns 2000)",
      "1 conversation waiting for a lock held by another process (stuck or dead? its lock expires within 30 s unless it is renewed)",
      "1 conversation waiting to start a turn: the event loop is busy (delay p99 180 ms, 3 of 16 CPU slots in use)",
    ]);
  });
});
