import { describe, expect, it } from "vitest";
import { SwitchboardMetrics } from "./switchboard-metrics.ts";

describe("SwitchboardMetrics", () => {
  it("reports each MCP tool server's connection as it is when scraped", async () => {
    let orders = "connected";
    const metrics = new SwitchboardMetrics({
      toolServers: () => [
        { name: "orders", status: orders },
        { name: "files", status: "down" },
      ],
    });
    const first = (await metrics.exposition()).body;
    expect(first).toContain('switchboard_mcp_server_connected{server="orders"} 1');
    expect(first).toContain('switchboard_mcp_server_connected{server="files"} 0');
    orders = "down";
    expect((await metrics.exposition()).body).toContain(
      'switchboard_mcp_server_connected{server="orders"} 0',
    );
  });

  it("reports turns, CPU slots, the event loop, lock waits, queue age and model endpoints when scraped", async () => {
    let rateLimited = 2;
    const metrics = new SwitchboardMetrics({
      engineHealth: () => ({
        runningTurns: 300,
        maxTurns: 2_000,
        waitingToStart: 2,
        cpuSlots: { limit: 16, inUse: 5, waiting: 1 },
        eventLoop: { delayP99Ms: 12, delayMaxMs: 20, utilization: 0.4 },
        waitingForLock: 1,
        lockWaits: 7,
        accepting: true,
        queues: { at: 0, queuedConversations: 4, oldestQueueAgeMs: 1_500, picked: 0 },
        modelEndpoints: [
          {
            endpoint: "https://api.openai.com/v1",
            limit: 128,
            inFlight: 120,
            queued: 30,
            waitingConversations: [],
            congestion: { rate_limited: rateLimited, overloaded: 0, timeout: 1 },
            reductions: 1,
          },
        ],
      }),
    });
    const body = (await metrics.exposition()).body;
    expect(body).toContain("switchboard_running_turns 300");
    expect(body).toContain("switchboard_max_turns 2000");
    expect(body).toContain("switchboard_turns_waiting_to_start 2");
    expect(body).toContain("switchboard_cpu_slots 16");
    expect(body).toContain("switchboard_cpu_slots_in_use 5");
    expect(body).toContain("switchboard_turns_waiting_for_cpu 1");
    expect(body).toContain("switchboard_event_loop_delay_p99_seconds 0.012");
    expect(body).toContain("switchboard_lock_waits 7");
    expect(body).toContain("switchboard_oldest_queue_age_seconds 1.5");
    const endpoint = 'endpoint="https://api.openai.com/v1"';
    expect(body).toContain(`switchboard_model_endpoint_limit{${endpoint}} 128`);
    expect(body).toContain(`switchboard_model_endpoint_in_flight{${endpoint}} 120`);
    expect(body).toContain(`switchboard_model_endpoint_queued{${endpoint}} 30`);
    expect(body).toContain(
      `switchboard_model_endpoint_congestion_total{${endpoint},signal="rate_limited"} 2`,
    );
    rateLimited = 5;
    expect((await metrics.exposition()).body).toContain(
      `switchboard_model_endpoint_congestion_total{${endpoint},signal="rate_limited"} 5`,
    );
  });

  it("has no tool server figure when none is configured", async () => {
    expect((await new SwitchboardMetrics().exposition()).body).not.toContain(
      "switchboard_mcp_server_connected",
    );
  });
});
