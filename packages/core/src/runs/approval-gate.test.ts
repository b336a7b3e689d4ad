import { describe, expect, it } from "vitest";
import { Deliverer } from "../delivery/deliverer.ts";
import { ConversationIndex } from "../engine/conversation-index.ts";
import type { Continuation } from "../engine/responder.ts";
import { Notices } from "../outbox/notices.ts";
import { Outbox } from "../outbox/outbox.ts";
import { silentLogger } from "../runtime/logger.ts";
import { testStoreBackends } from "../store/test-backends.ts";
import type { Store } from "../store/types.ts";
import { ApprovalGate } from "./approval-gate.ts";
import type { RunScheduler } from "./continuations.ts";
import { RequestTracker } from "./request-tracker.ts";
import { requestsConfigSchema } from "./runs-config.ts";

/** One instance of the app: its own gate and scheduler over the shared store. */
function instance(store: Store, queued: Continuation[]) {
  const tracker = new RequestTracker(store, { now: () => 5_000 }, requestsConfigSchema.parse({}));
  const deliverer = new Deliverer([], new ConversationIndex(store));
  const scheduler: RunScheduler = {
    deliverer,
    notices: new Notices({
      store,
      outbox: new Outbox({ store, deliverer, logger: silentLogger }),
      logger: silentLogger,
      lockTtlMs: 30_000,
    }),
    async enqueueContinuation(_key, continuation) {
      queued.push(continuation);
      return true;
    },
  };
  const gate = new ApprovalGate({
    tracker,
    scheduler: () => scheduler,
    atomic: store.atomic,
    clock: { now: () => 6_000 },
    admins: ["boss"],
    logger: silentLogger,
  });
  return { tracker, gate };
}

async function waitingRequest(tracker: RequestTracker) {
  const { request, run } = await tracker.openWithRun(
    {
      conversationKey: "slack:T:C:1.1",
      origin: {
        conversation: { platform: "slack", path: ["T", "C", "1.1"] },
        messageId: "C:1.1",
        authorId: "ana",
      },
      agent: null,
    },
    "user_message",
  );
  await tracker.finishRun(request.id, run.runId, "interrupted");
  return tracker.setStatus(request.id, "awaiting_approval", {
    approval: { agent: "billing", tool: "refund", args: {} },
  });
}

describe.each(testStoreBackends("approval-gate"))("ApprovalGate on %s", (_name, open) => {
  const press = (requestId: string, actor: string, platform = "slack") => ({
    requestId,
    approved: true,
    platform,
    actor: { id: actor, name: actor },
  });

  it.each([
    { who: "the requester", actor: "ana", platform: "slack", kind: "decided" },
    { who: "an admin", actor: "boss", platform: "slack", kind: "decided" },
    { who: "someone else", actor: "mallory", platform: "slack", kind: "not-allowed" },
    // The same id on another platform is another person.
    {
      who: "the requester's id from another platform",
      actor: "ana",
      platform: "discord",
      kind: "not-waiting",
    },
  ])("a press by $who: $kind", async ({ actor, platform, kind }) => {
    const { store, cleanup } = await open();
    try {
      const queued: Continuation[] = [];
      const { tracker, gate } = instance(store, queued);
      const waiting = await waitingRequest(tracker);
      const answer = await gate.decide(press(waiting.id, actor, platform));
      expect(answer.kind).toBe(kind);
      if (answer.kind === "not-allowed") expect(answer.requesterId).toBe("ana");
      expect(queued).toHaveLength(kind === "decided" ? 1 : 0);
      expect((await tracker.require(waiting.id)).status).toBe(
        kind === "decided" ? "active" : "awaiting_approval",
      );
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("the same press reaching two instances at once decides once; a later press is told who decided", async () => {
    const { store, cleanup } = await open();
    try {
      const queued: Continuation[] = [];
      const first = instance(store, queued);
      const second = instance(store, queued);
      const waiting = await waitingRequest(first.tracker);
      const answers = await Promise.all([
        first.gate.decide(press(waiting.id, "ana")),
        second.gate.decide(press(waiting.id, "ana")),
      ]);
      expect(answers.map((answer) => answer.kind).sort()).toEqual(["decided", "not-waiting"]);
      expect(queued).toHaveLength(1);
      expect(await second.gate.decide(press(waiting.id, "ana"))).toEqual({
        kind: "not-waiting",
        decided: { approved: true, by: "ana" },
      });
      expect(await first.gate.decide(press("no-such-request", "ana"))).toEqual({ kind: "not-waiting" });
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
