import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { openStore, type Store } from "@switchboard/core";
import { signWebhook, startHttpServer } from "@switchboard/core/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTrackingHarness } from "./support/tracking-harness.ts";

const conversationA = { platform: "test", path: ["general", "root-a"] };

describe("cross-run request tracking: webhooks, notices and timeouts", () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore("memory://");
  });
  afterEach(async () => {
    await store.close();
  });

  describe("webhooks", () => {
    const secret = "a-shared-secret-of-some-length";
    const setup = async () => {
      const seen: string[] = [];
      const startJob = tool(
        async (_input, config) => {
          seen.push(String(config?.configurable?.request_id));
          return "job queued";
        },
        { name: "start_report", description: "start a long report job", schema: z.object({}) },
      );
      const model = fakeModel()
        .respondWithTools([{ name: "start_report", args: {}, id: "j1" }])
        .respond(new AIMessage("I started your report; it will be posted here."));
      const h = await startTrackingHarness({
        store,
        model,
        catalog: [{ tool: startJob, requiresApproval: false }],
        supervisorTools: ["start_report"],
        webhookSecret: secret,
      });
      const server = await startHttpServer({
        host: "127.0.0.1",
        port: 0,
        webhooks: h.tracking.webhooks,
        health: async () => ({}),
        logger: { debug() {}, info() {}, warn() {}, error() {} },
      });
      const origin = await h.adapter.send("make me a report", { conversation: conversationA });
      await h.engine.idle();
      const requestId = seen[0] ?? "";
      const post = async (body: object, options: { secret?: string; ageSeconds?: number } = {}) => {
        const raw = JSON.stringify(body);
        const timestamp = Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0);
        const response = await fetch(`${server.url}/webhooks/runs`, {
          method: "POST",
          body: raw,
          headers: {
            "x-switchboard-timestamp": String(timestamp),
            "x-switchboard-signature": signWebhook(options.secret ?? secret, timestamp, raw),
          },
        });
        return response.status;
      };
      return { h, server, origin, requestId, post };
    };

    it("delivers a webhook-reported completion to the original thread, once", async () => {
      const { h, server, origin, requestId, post } = await setup();
      expect(requestId).toMatch(/^req-/);
      expect(await post({ event: "run_triggered", eventId: "e1", requestId, runId: "ext-1" })).toBe(202);
      expect((await h.tracking.tracker.get(requestId))?.status).toBe("awaiting_external");
      const done = {
        event: "run_completed",
        eventId: "e2",
        requestId,
        runId: "ext-1",
        message: "Your report: 42 pages.",
      };
      expect(await post(done)).toBe(202);
      expect(await post(done)).toBe(200);
      await h.engine.idle();
      const reports = h.adapter.posts.filter((p) => p.text === "Your report: 42 pages.");
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ replyTo: origin.id, conversation: conversationA });
      const request = await h.tracking.tracker.get(requestId);
      expect(request?.status).toBe("completed");
      expect(request?.runs.map((run) => [run.triggeredBy, run.runId, run.status])).toContainEqual([
        "webhook",
        "ext-1",
        "completed",
      ]);
      await server.close();
      await h.stop();
    });

    it("a replayed trigger after a crash between recording the run and its status finishes the job, once", async () => {
      const { h, server, requestId, post } = await setup();
      // What a process killed right after recording the run leaves behind: the run, not the status.
      await h.tracking.tracker.startRun(requestId, {
        triggeredBy: "webhook",
        runId: "ext-9",
        openedByEvent: "t9",
      });
      expect((await h.tracking.tracker.get(requestId))?.status).not.toBe("awaiting_external");
      expect(await post({ event: "run_triggered", eventId: "t9", requestId, runId: "ext-9" })).toBe(200);
      const request = await h.tracking.tracker.get(requestId);
      expect(request?.status).toBe("awaiting_external");
      expect(request?.runs.filter((run) => run.runId === "ext-9")).toHaveLength(1);
      // Another event id for the same run is a conflict, not a replay.
      expect(await post({ event: "run_triggered", eventId: "t10", requestId, runId: "ext-9" })).toBe(409);
      await server.close();
      await h.stop();
    });

    it("refuses results for finished runs and closed requests (409) and oversized messages (413), posting nothing", async () => {
      const { h, server, requestId, post } = await setup();
      expect(await post({ event: "run_triggered", eventId: "t1", requestId, runId: "job-1" })).toBe(202);
      const finish = { event: "run_completed", requestId, runId: "job-1", message: "Done: 42." };
      expect(await post({ ...finish, eventId: "c1" })).toBe(202);
      await h.engine.idle();
      // A second event id for the same finished run, and a result for a run never triggered on a closed request.
      expect(await post({ ...finish, eventId: "c2", message: "Done again." })).toBe(409);
      expect(await post({ ...finish, eventId: "c3", runId: "never-triggered", message: "Stray." })).toBe(409);
      expect(await post({ ...finish, eventId: "c1" })).toBe(200);
      expect(await post({ event: "run_triggered", eventId: "t1-again", requestId, runId: "job-1" })).toBe(
        409,
      );
      const huge = {
        event: "run_completed",
        eventId: "big",
        requestId,
        runId: "job-2",
        message: "x".repeat(1_000_000),
      };
      expect(await post(huge)).toBe(413);
      await h.engine.idle();
      const texts = h.adapter.posts.map((p) => p.text);
      expect(texts.filter((text) => text === "Done: 42.")).toHaveLength(1);
      expect(
        texts.some((text) => text === "Done again." || text === "Stray." || text.startsWith("xxxx")),
      ).toBe(false);
      await server.close();
      await h.stop();
    });

    it("rejects bad signatures, stale timestamps and unknown requests without changing anything", async () => {
      const { h, server, requestId, post } = await setup();
      const before = await h.tracking.tracker.get(requestId);
      const event = {
        event: "run_completed",
        eventId: "x1",
        requestId,
        runId: "r",
        message: "should never appear",
      };
      expect(await post(event, { secret: "the-wrong-secret-entirely" })).toBe(401);
      expect(await post(event, { ageSeconds: 6 * 60 })).toBe(401);
      expect(await post({ ...event, requestId: "req-unknown" })).toBe(404);
      expect(await post({ event: "run_completed" })).toBe(400);
      await h.engine.idle();
      expect(await h.tracking.tracker.get(requestId)).toEqual(before);
      expect(h.adapter.posts.some((p) => p.text === "should never appear")).toBe(false);
      await server.close();
      await h.stop();
    });
  });

  it("sends one 'still working' notice, then times out, on a fake clock", async () => {
    let now = 1_800_000_000_000;
    const clock = { now: () => now };
    const h = await startTrackingHarness({
      store,
      model: fakeModel(),
      catalog: [],
      supervisorTools: [],
      clock,
    });
    const request = await h.tracking.tracker.open({
      conversationKey: "test:general:root-a",
      origin: { conversation: conversationA, messageId: "m-origin", authorId: "ana" },
      agent: null,
    });
    await h.tracking.tracker.setStatus(request.id, "awaiting_external");
    now += 59_000;
    await h.tracking.sweeper.sweep();
    expect(h.adapter.posts).toEqual([]);
    now += 2_000;
    await h.tracking.sweeper.sweep();
    await h.tracking.sweeper.sweep();
    expect(h.adapter.posts.map((p) => [p.text, p.replyTo])).toEqual([
      ["Still working on it — I'll answer here when it's done.", "m-origin"],
    ]);
    now += 240_000;
    await h.tracking.sweeper.sweep();
    expect(h.adapter.posts.at(-1)?.text).toMatch(/could not finish this within 5 minutes.*timed out/);
    expect((await h.tracking.tracker.get(request.id))?.status).toBe("timed_out");
    await h.stop();
  });
});
