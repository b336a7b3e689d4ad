import { randomUUID } from "node:crypto";
import type Keyv from "keyv";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "./types.ts";

/** One backend's data, fresh for every test; `open` may be called again to reopen the same data. */
export interface KeyvStoreFixture {
  open(): Promise<Store>;
  /** Lets `ms` pass as both keyv and the backend see time. */
  elapse(ms: number): Promise<void>;
  /** Removes whatever the test left behind (files, keys). */
  cleanup(): Promise<void>;
}

const TTL = 150;

/** What every backend's keyv namespaces must do, from the runtime's point of view. */
export function defineKeyvStoreSuite(
  backend: string,
  createFixture: () => Promise<KeyvStoreFixture>,
  options: { readonly persistent: boolean },
): void {
  describe(`keyv namespaces: ${backend}`, () => {
    let fixture: KeyvStoreFixture;
    let store: Store;

    beforeEach(async () => {
      fixture = await createFixture();
      store = await fixture.open();
    });
    afterEach(async () => {
      await store.close();
      await fixture.cleanup();
    });

    it("round-trips JSON values and reports missing keys as undefined", async () => {
      const values = store.namespace<unknown>("values");
      const samples: [string, unknown][] = [
        ["object", { agent: "researcher", since: 1_700_000_000_000, tags: ["a", "b"] }],
        ["text", "with: colons and ünïcode"],
        ["number", 42],
        ["flag", false],
      ];
      for (const [key, value] of samples) expect(await values.set(key, value)).toBe(true);
      for (const [key, value] of samples) expect(await values.get(key)).toEqual(value);
      expect(await values.get("absent")).toBeUndefined();
      expect(await values.has("object")).toBe(true);
      expect(await values.has("absent")).toBe(false);
    });

    it("forgets a value once its TTL has passed, and keeps one without a TTL", async () => {
      const sessions = store.namespace<string>("sessions");
      await sessions.set("short", "soon gone", TTL);
      await sessions.set("forever", "stays");
      expect(await sessions.get("short")).toBe("soon gone");
      await fixture.elapse(TTL + 100);
      expect(await sessions.get("short")).toBeUndefined();
      expect(await sessions.has("short")).toBe(false);
      expect(await sessions.get("forever")).toBe("stays");
    });

    it("keeps namespaces apart, including clear()", async () => {
      const agents = store.namespace<string>("active-agents");
      const index = store.namespace<string>("message-index");
      expect(store.namespace("active-agents")).toBe(agents);
      await agents.set("thread", "researcher");
      expect(await index.get("thread")).toBeUndefined();
      await index.set("thread", "root-message");
      await agents.clear();
      expect(await agents.get("thread")).toBeUndefined();
      expect(await index.get("thread")).toBe("root-message");
    });

    it("deletes one or many keys and reads many at once", async () => {
      const usage = store.namespace<number>("usage");
      await usage.setMany([
        { key: "a", value: 1 },
        { key: "b", value: 2 },
        { key: "c", value: 3 },
      ]);
      expect(await usage.getMany(["a", "missing", "c"])).toEqual([1, undefined, 3]);
      expect(await usage.delete("a")).toBe(true);
      expect(await usage.delete("a")).toBe(false);
      expect(await usage.deleteMany(["b", "c"])).toBe(true);
      expect(await usage.getMany(["a", "b", "c"])).toEqual([undefined, undefined, undefined]);
    });

    it("iterates over the live entries of its own namespace only", async () => {
      const memory = store.namespace<string>("memory");
      await store.namespace<string>("other").set("elsewhere", "x");
      await memory.set("one", "1");
      await memory.set("two", "2");
      await memory.set("fading", "gone", TTL);
      await fixture.elapse(TTL + 100);
      expect(Object.fromEntries(await entriesOf(memory))).toEqual({ one: "1", two: "2" });
    });

    it("refuses namespace names that could reach into other keys", () => {
      for (const name of ["", "a*", "has space", "x?y"]) {
        expect(() => store.namespace(name)).toThrow(RangeError);
      }
    });

    it.runIf(options.persistent)("keeps values across close and reopen", async () => {
      const key = randomUUID();
      await store.namespace<{ agent: string }>("active-agents").set(key, { agent: "coder" });
      await store.close();
      store = await fixture.open();
      expect(await store.namespace<{ agent: string }>("active-agents").get(key)).toEqual({ agent: "coder" });
    });
  });
}

async function entriesOf<Value>(keyv: Keyv<Value>): Promise<[string, Value][]> {
  if (!keyv.iterator) throw new Error("this keyv store cannot iterate");
  const entries: [string, Value][] = [];
  for await (const [key, value] of keyv.iterator(undefined)) entries.push([key, value]);
  return entries;
}
