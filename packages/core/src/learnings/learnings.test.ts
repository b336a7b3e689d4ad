import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { placeOf } from "../conversation/place-of.ts";
import { fakeClock, type TestStore, testStoreBackends } from "../store/test-backends.ts";
import { Identities, IdentityConflictError } from "./identities.ts";
import { learningCommands } from "./learning-commands.ts";
import { composeLearnings } from "./learning-prompt.ts";
import type { Learning } from "./learning-store.ts";
import { FORGET_LEARNING, Learnings, REMEMBER } from "./learnings.ts";
import { learningsConfigSchema } from "./learnings-config.ts";

const THREAD_A = "slack:T1:C2:1700.1";
const THREAD_B = "slack:T1:C2:1700.2";
const ELSEWHERE = "slack:T1:C9:1800.1";
const ANA = "U0ANA";
const BOB = "U0BOB";

describe.each(testStoreBackends("learnings"))("learnings on %s", (_name, open) => {
  let opened: TestStore;
  let learnings: Learnings;
  const clock = fakeClock(Date.UTC(2026, 10, 20, 9));
  beforeEach(async () => {
    opened = await open();
    learnings = new Learnings({
      store: opened.store,
      config: learningsConfigSchema.parse({ maxPerSubject: 3 }),
      identities: new Identities({ ana: [`slack:${ANA}`, "matrix:@ana:hs"] }),
      clock,
    });
  });
  afterEach(async () => {
    await opened.store.close();
    await opened.cleanup();
  });

  it("a person's learnings follow them to another thread and never reach another person", async () => {
    await learnings.remember(THREAD_A, ANA, "user", "Prefers invoices in EUR");
    const anaElsewhere = await learnings.promptFor(THREAD_B, ANA);
    expect(anaElsewhere).toContain("Prefers invoices in EUR");
    expect(await learnings.promptFor(THREAD_B, BOB)).toBeUndefined();
    // Linked by the operator: the same person on Matrix.
    expect(await learnings.promptFor("matrix:!room%3Ahs", "@ana:hs")).toContain("Prefers invoices in EUR");
    expect(await learnings.promptFor("matrix:!room%3Ahs", "@bob:hs")).toBeUndefined();
  });

  it("conversation learnings stay in the thread, place learnings in the channel, for everyone there", async () => {
    await learnings.remember(THREAD_A, ANA, "conversation", "This thread is about the March refund");
    await learnings.remember(THREAD_A, ANA, "place", "This channel is the billing team's");
    expect(await learnings.promptFor(THREAD_A, BOB)).toContain("March refund");
    const otherThread = await learnings.promptFor(THREAD_B, BOB);
    expect(otherThread).not.toContain("March refund");
    expect(otherThread).toContain("billing team's");
    expect(await learnings.promptFor(ELSEWHERE, ANA)).toBeUndefined();
  });

  it("deletes only what the asker may: another person's learning is out of reach", async () => {
    const { learning } = await learnings.remember(THREAD_A, ANA, "user", "Works nights");
    expect(await learnings.forget(THREAD_A, BOB, learning.id)).toBeUndefined();
    expect(await learnings.promptFor(THREAD_A, ANA)).toContain("Works nights");
    expect((await learnings.forget(THREAD_B, ANA, learning.id))?.text).toBe("Works nights");
    expect(await learnings.promptFor(THREAD_A, ANA)).toBeUndefined();
  });

  it("keeps a fact once, and at most maxPerSubject (the oldest makes room)", async () => {
    const first = await learnings.remember(THREAD_A, ANA, "user", "Likes tea");
    expect((await learnings.remember(THREAD_A, ANA, "user", "  likes   TEA ")).repeated).toBe(true);
    for (const text of ["Two", "Three"]) await learnings.remember(THREAD_A, ANA, "user", text);
    const fourth = await learnings.remember(THREAD_A, ANA, "user", "Four");
    expect(fourth.dropped.map((learning) => learning.id)).toEqual([first.learning.id]);
    expect((await learnings.visibleTo(THREAD_A, ANA)).map((learning) => learning.text)).toEqual([
      "Two",
      "Three",
      "Four",
    ]);
  });

  it("two threads remembering about the same person at once both keep theirs (the subject's lock)", async () => {
    await Promise.all(
      Array.from({ length: 3 }, (_, index) =>
        learnings.remember(`slack:T1:C2:17${index}.0`, ANA, "user", `fact ${index}`),
      ),
    );
    expect(await learnings.visibleTo(THREAD_A, ANA)).toHaveLength(3);
  });

  it("/reset clears the conversation's learnings only; the console lists subjects with learnings", async () => {
    await learnings.remember(THREAD_A, ANA, "user", "Mine");
    await learnings.remember(THREAD_A, ANA, "conversation", "The thread's");
    expect(await learnings.clearConversation(THREAD_A, ANA)).toBe(1);
    expect((await learnings.visibleTo(THREAD_A, ANA)).map((learning) => learning.text)).toEqual(["Mine"]);
    expect((await learnings.store.listing(10)).map((listed) => listed.subject)).toEqual([`user:person:ana`]);
    await clock.advance(1_000);
    await learnings.remember(THREAD_B, BOB, "user", "Bob's");
    // The most recently changed subject first, and no more than asked for.
    expect((await learnings.store.listing(1)).map((listed) => listed.subject)).toEqual([`user:slack:${BOB}`]);
  });

  it("the tools take the person and the thread from the run, never from the model", async () => {
    const [remember, forget] = learnings.tools();
    expect(remember?.name).toBe(REMEMBER);
    const run = { configurable: { thread_id: THREAD_A, user_id: BOB } };
    const kept = String(await remember?.invoke({ text: "Bob wants a call back", scope: "user" }, run));
    const id = /\[(\w+)\]/.exec(kept)?.[1] ?? "";
    expect(await learnings.promptFor(THREAD_B, BOB)).toContain("Bob wants a call back");
    expect(forget?.name).toBe(FORGET_LEARNING);
    const asAna = { configurable: { thread_id: THREAD_A, user_id: ANA } };
    expect(String(await forget?.invoke({ id }, asAna))).toBe(`No learning [${id}] here to delete.`);
    expect(String(await forget?.invoke({ id }, run))).toContain("Deleted");
  });

  it("/learnings lists the asker's and /forget <id> deletes one; other words go to memory's /forget", async () => {
    const { learning } = await learnings.remember(THREAD_A, ANA, "user", "Prefers email");
    const base = {
      name: "forget",
      usage: "[confirm]",
      summary: "memory",
      run: async () => ({ reply: "memory" }),
    };
    const [list, forget] = learningCommands(learnings, base);
    const context = (userId: string, args: string) => ({
      key: THREAD_B,
      conversation: { platform: "slack", path: ["T1", "C2", "1700.2"] },
      args,
      prefix: "/",
      message: {
        id: "m",
        conversation: { platform: "slack", path: ["T1", "C2", "1700.2"] },
        author: { id: userId, isBot: false, isSelf: false },
        text: "",
        isDirect: false,
        mentionsBot: true,
        isEdit: false,
        sentAt: 0,
      },
    });
    expect((await list?.run(context(ANA, "")))?.reply).toContain(`\`${learning.id}\` Prefers email`);
    expect((await list?.run(context(BOB, "")))?.reply).not.toContain("Prefers email");
    expect((await forget?.run(context(BOB, learning.id)))?.reply).toContain("You have no learning");
    expect((await forget?.run(context(ANA, "confirm")))?.reply).toBe("memory");
    expect((await forget?.run(context(ANA, learning.id)))?.reply).toBe(
      `Forgotten: [${learning.id}] Prefers email`,
    );
    expect(await learnings.visibleTo(THREAD_A, ANA)).toEqual([]);
  });
});

describe("composeLearnings", () => {
  const learning = (id: string, text: string, scope: Learning["scope"]): Learning => ({
    id,
    text,
    scope,
    by: ANA,
    in: THREAD_A,
    at: 0,
  });

  it("spends the budget newest first, the person's before the conversation's before the place's", () => {
    const text = composeLearnings(
      {
        place: [learning("p1111", "place fact", "place")],
        user: [learning("u1111", "old user fact", "user"), learning("u2222", "new user fact", "user")],
        conversation: [learning("c1111", "thread fact", "conversation")],
      },
      500,
    );
    expect(text.indexOf("new user fact")).toBeLessThan(text.indexOf("old user fact"));
    expect(text.indexOf("old user fact")).toBeLessThan(text.indexOf("thread fact"));
    expect(text.indexOf("thread fact")).toBeLessThan(text.indexOf("place fact"));
    expect(text).toContain("- [u2222] new user fact");
  });

  it("stops at the token budget", () => {
    const many = Array.from({ length: 50 }, (_, index) => learning(`x${index}`, "a".repeat(80), "user"));
    const text = composeLearnings({ user: many }, 200);
    expect(Math.ceil(text.length / 4)).toBeLessThanOrEqual(200 + 5);
    expect(text.split("\n").filter((line) => line.startsWith("- [")).length).toBeLessThan(50);
    expect(composeLearnings({}, 200)).toBe("");
  });
});

describe("identities and places", () => {
  it("links listed accounts to one person, and refuses an account listed twice", () => {
    const identities = new Identities({ ana: ["slack:U1", "discord:42"] });
    expect(identities.personOf("discord", "42")).toBe("person:ana");
    expect(identities.personOf("slack", "U2")).toBe("slack:U2");
    expect(() => new Identities({ ana: ["slack:U1"], bo: ["slack:U1"] })).toThrow(IdentityConflictError);
  });

  it.each([
    ["slack:T1:C2:1700.1", "slack:T1:C2"],
    ["slack:T1:D9", "slack:T1:D9"],
    ["discord:G1:C2:T3", "discord:G1:C2"],
    ["matrix:!room%3Ahs:$root", "matrix:!room%3Ahs"],
    ["console:main", "console:main"],
  ])("%s is in %s", (key, place) => {
    expect(placeOf(key)).toBe(place);
  });
});
