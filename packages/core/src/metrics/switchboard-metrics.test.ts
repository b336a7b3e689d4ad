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

  it("reports the engine's running turns, slot waits, lock waits and oldest queue age when scraped", async () => {
    const metrics = new SwitchboardMetrics({
      engineHealth: () => ({
        runningTurns: 3,
        waitingForSlot: 2,
        waitingForLock: 1,
        lockWaits: 7,
        accepting: true,
        queues: { at: 0, queuedConversations: 4, oldestQueueAgeMs: 1_500, picked: 0 },
      }),
    });
    const body = (await metrics.exposition()).body;
    expect(body).toContain("switchboard_running_turns 3");
    expect(body).toContain("switchboard_turns_waiting_for_slot 2");
    expect(body).toContain("switchboard_lock_waits 7");
    expect(body).toContain("switchboard_oldest_queue_age_seconds 1.5");
  });

  it("has no tool server figure when none is configured", async () => {
    expect((await new SwitchboardMetrics().exposition()).body).not.toContain(
      "switchboard_mcp_server_connected",
    );
  });
});
