import { describe, expect, it } from "vitest";
import { SwitchboardMetrics } from "./switchboard-metrics.ts";
import { WorkQueueMetrics } from "./work-queue-metrics.ts";

describe("WorkQueueMetrics", () => {
  it("reports the work queue's jobs by state when scraped, and what drains did", async () => {
    const metrics = new SwitchboardMetrics();
    let waiting = 5;
    const queue = new WorkQueueMetrics(metrics.registry, async () => ({
      waiting,
      active: 2,
      delayed: 1,
      failed: 0,
    }));
    queue.started(250);
    queue.finished("drained", 1_200);
    queue.finished("locked-elsewhere", 3);
    queue.stalled();
    const body = (await metrics.exposition()).body;
    expect(body).toContain('switchboard_work_queue_jobs{state="waiting"} 5');
    expect(body).toContain('switchboard_work_queue_jobs{state="active"} 2');
    expect(body).toContain('switchboard_work_queue_jobs{state="delayed"} 1');
    expect(body).toContain("switchboard_work_queue_wait_seconds_count 1");
    expect(body).toContain("switchboard_work_queue_wait_seconds_sum 0.25");
    expect(body).toContain('switchboard_work_queue_drain_seconds_count{outcome="drained"} 1');
    expect(body).toContain('switchboard_work_queue_drain_seconds_count{outcome="locked-elsewhere"} 1');
    expect(body).toContain("switchboard_work_queue_stalled_total 1");
    expect(queue.lastCounts?.waiting).toBe(5);
    waiting = 0;
    expect((await metrics.exposition()).body).toContain('switchboard_work_queue_jobs{state="waiting"} 0');
  });
});
