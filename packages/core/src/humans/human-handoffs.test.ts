import { afterEach, describe, expect, it } from "vitest";
import type { Continuation } from "../engine/responder.ts";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "../store/open-store.ts";
import type { Store } from "../store/types.ts";
import { ActiveAgentStore } from "../team/active-agents.ts";
import { humansConfigSchema } from "../team/team-config.ts";
import { HumanHandoffs } from "./human-handoffs.ts";

const KEY = "slack:T1:C1:1700000000.000100";
const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function world(config: Record<string, unknown> = { notify: "slack:T1:CPEOPLE", mention: "@support" }) {
  const store = await openStore("memory:", { logger: silentLogger });
  opened.push(store);
  let now = 1_700_000_000_000;
  const activeAgents = new ActiveAgentStore(store, { cacheTtlMs: 0 });
  const queued: { key: string; continuation: Continuation }[] = [];
  const seen = new Set<string>();
  const handoffs = new HumanHandoffs({
    store,
    activeAgents,
    config: humansConfigSchema.parse(config),
    clock: { now: () => now },
    logger: silentLogger,
  });
  handoffs.bind({
    async enqueueContinuation(key, continuation) {
      if (continuation.id && seen.has(continuation.id)) return false;
      if (continuation.id) seen.add(continuation.id);
      queued.push({ key, continuation });
      return true;
    },
  });
  return {
    handoffs,
    activeAgents,
    queued,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("handing a thread to a person", () => {
  it("makes the person the thread's agent, tells the people's channel once, and hands back to the agent that had it", async () => {
    const w = await world();
    await w.activeAgents.set(KEY, "billing");
    expect(await w.handoffs.take(KEY, "alice", "wants a refund over the limit")).toBe(
      "I've asked a person to take over (@support). The bot will not answer in this thread until it is handed back with /bot.",
    );
    expect((await w.activeAgents.get(KEY))?.agent).toBe("human");
    expect(await w.handoffs.take(KEY, "billing", "again")).toMatch(/already been asked/);
    expect(w.queued.map((q) => [q.key, q.continuation.type, q.continuation.data?.key])).toEqual([
      ["slack:T1:CPEOPLE", "human_notice", KEY],
    ]);
    expect((await w.handoffs.open()).map((h) => [h.key, h.previousAgent])).toEqual([[KEY, "billing"]]);
    expect(await w.handoffs.release(KEY, "bob")).toBe("Back to the bot: billing answers here again.");
    expect((await w.activeAgents.get(KEY))?.agent).toBe("billing");
    expect(await w.handoffs.open()).toEqual([]);
    expect(await w.handoffs.release(KEY, "bob")).toBe(
      "No person has this thread: the bot is answering here.",
    );
  });

  it("without a people's channel, only the thread is told", async () => {
    const w = await world({});
    expect(await w.handoffs.take(KEY, "alice", "")).toBe(
      "A person can take over now. The bot will not answer in this thread until it is handed back with /bot.",
    );
    expect(w.queued).toEqual([]);
  });

  it("hands a thread back by itself after releaseAfterMinutes, with one line in the thread", async () => {
    const w = await world({ releaseAfterMinutes: 30 });
    await w.handoffs.take(KEY, "alice", "");
    w.advance(29 * 60_000);
    expect(await w.handoffs.sweep()).toBe(0);
    w.advance(60_001);
    expect(await w.handoffs.sweep()).toBe(1);
    expect(await w.activeAgents.get(KEY)).toBeUndefined();
    expect(w.queued.map((q) => [q.key, q.continuation.type])).toEqual([[KEY, "human_released"]]);
    expect(await w.handoffs.sweep()).toBe(0);
  });

  it("a handoff whose record a crash never wrote does not leave the thread silent: /bot clears it", async () => {
    const w = await world();
    await w.activeAgents.set(KEY, "human");
    expect(await w.handoffs.release(KEY, "alice")).toMatch(/No person has this thread/);
    expect(await w.activeAgents.get(KEY)).toBeUndefined();
  });
});
