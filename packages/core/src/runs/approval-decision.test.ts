import { describe, expect, it } from "vitest";
import { Deliverer } from "../delivery/deliverer.ts";
import { ConversationIndex } from "../engine/conversation-index.ts";
import type { Continuation } from "../engine/responder.ts";
import { Notices } from "../outbox/notices.ts";
import { Outbox } from "../outbox/outbox.ts";
import { silentLogger } from "../runtime/logger.ts";
import { testStoreBackends } from "../store/test-backends.ts";
import { decideApproval, NotAwaitingApprovalError } from "./approval-decision.ts";
import type { RunScheduler } from "./continuations.ts";
import { RequestTracker } from "./request-tracker.ts";
import { requestsConfigSchema } from "./runs-config.ts";

describe.each(testStoreBackends("approval-decision"))("decideApproval on %s", (_name, open) => {
  it("records who decided and resumes the request once, however many decide at the same moment", async () => {
    const { store, cleanup } = await open();
    try {
      const tracker = new RequestTracker(store, { now: () => 5_000 }, requestsConfigSchema.parse({}));
      const queued: { key: string; continuation: Continuation }[] = [];
      // The engine's side of the seam: what it was asked to queue.
      const deliverer = new Deliverer([], new ConversationIndex(store));
      const scheduler: RunScheduler = {
        deliverer,
        notices: new Notices({
          store,
          outbox: new Outbox({ store, deliverer, logger: silentLogger }),
          logger: silentLogger,
          lockTtlMs: 30_000,
        }),
        async enqueueContinuation(key, continuation) {
          queued.push({ key, continuation });
          return true;
        },
      };
      const opened = await tracker.open({
        conversationKey: "web:s:main",
        origin: { conversation: { platform: "web", path: ["s", "main"] }, messageId: "w-1", authorId: "ana" },
        agent: null,
      });
      const run = await tracker.startRun(opened.id, { triggeredBy: "user_message" });
      await tracker.finishRun(opened.id, run.runId, "interrupted");
      const waiting = await tracker.setStatus(opened.id, "awaiting_approval", {
        approval: { agent: "billing", tool: "refund", args: { amount: 42 } },
      });
      const deps = { tracker, scheduler, atomic: store.atomic };
      const results = await Promise.allSettled([
        decideApproval(deps, waiting, { approved: true, by: "console operator", via: "console" }, 6_000),
        decideApproval(deps, waiting, { approved: false, by: "ana", via: "chat" }, 6_000),
      ]);
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
      const refused = results.find((result) => result.status === "rejected");
      expect(refused?.status === "rejected" && refused.reason).toBeInstanceOf(NotAwaitingApprovalError);
      expect(queued).toHaveLength(1);
      expect(queued[0]?.continuation).toMatchObject({
        requestId: opened.id,
        type: "approval",
        data: { parentRunId: run.runId },
      });
      const decided = await tracker.require(opened.id);
      expect(decided.status).toBe("active");
      expect(decided.decision?.at).toBe(6_000);
      await expect(
        decideApproval(deps, decided, { approved: true, by: "late", via: "console" }, 7_000),
      ).rejects.toBeInstanceOf(NotAwaitingApprovalError);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
