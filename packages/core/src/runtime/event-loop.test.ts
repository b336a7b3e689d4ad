import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.ts";
import { tempDirectory } from "../store/test-backends.ts";
import type { Store } from "../store/types.ts";
import { AtOncePerLoopTurn, runAsBackground, runAsIntake } from "./event-loop.ts";

describe("SQLite work and the event loop", () => {
  let store: Store;
  let dir: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    dir = await tempDirectory();
    store = await openStore(`sqlite://${join(dir.path, "switchboard.db")}`);
  });
  afterEach(async () => {
    await store.close();
    await dir.remove();
  });

  const writes = async (count: number, done: { value: number }) => {
    for (let index = 0; index < count; index++) {
      await store.namespace<string>("test").set(`k${index}`, "v");
      done.value = index + 1;
    }
  };

  it("a run of store calls lets waiting I/O in between them instead of holding the loop to the end", async () => {
    const done = { value: 0 };
    let seenAt: number | undefined;
    setImmediate(() => {
      seenAt = done.value;
    });
    await writes(200, done);
    expect(seenAt).toBeDefined();
    expect(seenAt).toBeLessThan(5);
  });

  it("intake's store calls do not wait for the loop: they finish before anything queued behind them", async () => {
    const done = { value: 0 };
    let seenAt: number | undefined;
    setImmediate(() => {
      seenAt = done.value;
    });
    await runAsIntake(() => writes(50, done));
    expect(seenAt).toBeUndefined();
    expect(done.value).toBe(50);
  });

  it("work started from intake as background yields again", async () => {
    const done = { value: 0 };
    let seenAt: number | undefined;
    setImmediate(() => {
      seenAt = done.value;
    });
    await runAsIntake(() => runAsBackground(() => writes(50, done)));
    expect(seenAt).toBeLessThan(5);
  });
});

describe("AtOncePerLoopTurn", () => {
  const loopTurn = () => new Promise((resolve) => setImmediate(resolve));

  it("allows `budget` steps in one turn of the loop, refuses the next, and allows them again after the loop turned", async () => {
    const atOnce = new AtOncePerLoopTurn(3);
    expect([atOnce.take(), atOnce.take(), atOnce.take(), atOnce.take(), atOnce.take()]).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    await loopTurn();
    expect([atOnce.take(), atOnce.take(), atOnce.take(), atOnce.take()]).toEqual([true, true, true, false]);
  });

  it("counts only what was allowed: refusals do not use up the next turn's budget", async () => {
    const atOnce = new AtOncePerLoopTurn(1);
    expect(atOnce.take()).toBe(true);
    for (let index = 0; index < 10; index++) expect(atOnce.take()).toBe(false);
    await loopTurn();
    expect(atOnce.take()).toBe(true);
  });
});
