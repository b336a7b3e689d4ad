import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../conversation/messages.ts";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "../store/open-store.ts";
import {
  describeWithRedis,
  fakeClock,
  removeRedisKeys,
  TEST_REDIS_URL,
  tempDirectory,
  uniqueRedisPrefix,
} from "../store/test-backends.ts";
import type { Store } from "../store/types.ts";
import { type AccessConfigInput, accessConfigSchema, platformAccessSchema } from "./access-config.ts";
import { AccessGate } from "./access-gate.ts";
import { decideAccess } from "./access-policy.ts";
import { pairCommand } from "./pair-command.ts";
import { normalizeCode, Pairings } from "./pairings.ts";

const facts = { isDirect: false, userId: "U1", place: "C1", space: "T1", isAdmin: false };

describe("decideAccess", () => {
  it("lets everyone in by default", () => {
    const open = platformAccessSchema.parse({});
    expect(decideAccess(open, facts)).toBe("allow");
    expect(decideAccess(open, { ...facts, isDirect: true })).toBe("allow");
  });

  it("applies each direct-message mode", () => {
    const dm = (mode: "allowlist" | "pairing" | "disabled") =>
      platformAccessSchema.parse({ dm: mode, users: ["U1"] });
    expect(decideAccess(dm("disabled"), { ...facts, isDirect: true })).toBe("deny");
    expect(decideAccess(dm("allowlist"), { ...facts, isDirect: true })).toBe("allow");
    expect(decideAccess(dm("allowlist"), { ...facts, isDirect: true, userId: "U2" })).toBe("deny");
    expect(decideAccess(dm("pairing"), { ...facts, isDirect: true })).toBe("allow");
    expect(decideAccess(dm("pairing"), { ...facts, isDirect: true, userId: "U2" })).toBe("pair");
    // Admins are always let in, even with direct messages off.
    expect(decideAccess(dm("disabled"), { ...facts, isDirect: true, isAdmin: true })).toBe("allow");
  });

  it("lets groups in by place, space and user", () => {
    const byPlace = platformAccessSchema.parse({ groups: "allowlist", places: ["C1"] });
    expect(decideAccess(byPlace, facts)).toBe("allow");
    expect(decideAccess(byPlace, { ...facts, place: "C2" })).toBe("deny");
    const bySpace = platformAccessSchema.parse({ groups: "allowlist", spaces: ["T1"] });
    expect(decideAccess(bySpace, { ...facts, place: "C9" })).toBe("allow");
    expect(decideAccess(bySpace, { ...facts, space: "T2" })).toBe("deny");
    const placeAndUser = platformAccessSchema.parse({ groups: "allowlist", places: ["C1"], users: ["U1"] });
    expect(decideAccess(placeAndUser, facts)).toBe("allow");
    expect(decideAccess(placeAndUser, { ...facts, userId: "U2" })).toBe("deny");
    // Group lists do not open direct messages' own policy, and vice versa.
    expect(decideAccess(placeAndUser, { ...facts, userId: "U2", isDirect: true })).toBe("allow");
  });

  it("refuses lists that would let nobody in, with a reason", () => {
    expect(() => platformAccessSchema.parse({ dm: "allowlist" })).toThrow(/needs at least one user id/);
    expect(() => platformAccessSchema.parse({ groups: "allowlist" })).toThrow(
      /needs at least one of `places`, `spaces` or `users`/,
    );
    expect(() => platformAccessSchema.parse({ dm: "maybe" })).toThrow();
  });
});

function dmFrom(userId: string, id: string): InboundMessage {
  return {
    id,
    conversation: { platform: "slack", path: ["T1", "D1"] },
    author: { id: userId, displayName: `name of ${userId}`, isBot: false, isSelf: false },
    text: "hello",
    isDirect: true,
    mentionsBot: false,
    isEdit: false,
    sentAt: 0,
  };
}

function definePairingSuite(name: string, open: () => Promise<{ store: Store; cleanup(): Promise<void> }>) {
  describe(`pairing on ${name}`, () => {
    let opened: { store: Store; cleanup(): Promise<void> } | undefined;
    afterEach(async () => {
      await opened?.store.close();
      await opened?.cleanup();
      opened = undefined;
    });

    async function setUp(config: AccessConfigInput = { slack: { dm: "pairing" } }) {
      opened = await open();
      const clock = fakeClock(1_000_000);
      const parsed = accessConfigSchema.parse(config);
      const pairings = new Pairings({
        store: opened.store,
        clock,
        codeMinutes: parsed.pairingCodeMinutes,
        reminderMinutes: parsed.pairingReminderMinutes,
      });
      const gate = new AccessGate({ config: parsed, admins: ["ADMIN"], pairings, clock });
      return { clock, pairings, gate };
    }

    it("gives an unknown sender a code once, reminds sparingly, and lets them in once approved", async () => {
      const { clock, pairings, gate } = await setUp();
      const first = await gate.check(dmFrom("U9", "m1"), { place: "D1", space: "T1" }, "/");
      expect(first.kind).toBe("pair");
      const reply = first.kind === "pair" ? first.reply : null;
      const code = /\*\*([A-Z0-9]{4}-[A-Z0-9]{4})\*\*/.exec(reply ?? "")?.[1];
      expect(code).toBeDefined();
      expect(reply).toContain(`/pair ${code}`);
      expect(reply).toContain("valid for 60 min");
      // The same code, and no second reply, until the reminder interval has passed.
      expect(await gate.check(dmFrom("U9", "m2"), { place: "D1" }, "/")).toEqual({
        kind: "pair",
        reply: null,
      });
      await clock.advance(11 * 60_000);
      const reminded = await gate.check(dmFrom("U9", "m3"), { place: "D1" }, "/");
      expect(reminded.kind === "pair" ? reminded.reply : null).toContain(code);

      expect((await pairings.pending()).map((one) => one.userId)).toEqual(["U9"]);
      const approve = pairCommand({ pairings, admins: ["ADMIN"] });
      const context = (author: string, args: string) => ({
        key: "slack:T1:D2",
        conversation: { platform: "slack", path: ["T1", "D2"] },
        message: { ...dmFrom(author, "c1"), conversation: { platform: "slack", path: ["T1", "D2"] } },
        args,
        prefix: "/",
      });
      expect((await approve.run(context("U9", code ?? ""))).reply).toMatch(/Only an admin/);
      expect((await approve.run(context("ADMIN", "nope-nope"))).reply).toMatch(/No pairing code/);
      expect((await approve.run(context("ADMIN", (code ?? "").toLowerCase()))).reply).toBe(
        "Approved: name of U9 (slack) can talk to me now.",
      );
      expect(await gate.check(dmFrom("U9", "m4"), { place: "D1" }, "/")).toEqual({ kind: "allow" });
      expect(await pairings.pending()).toEqual([]);
      expect((await pairings.approved()).map((one) => [one.userId, one.approvedBy])).toEqual([
        ["U9", "ADMIN"],
      ]);

      // Revoked: the next message gets a new code.
      expect((await pairings.revoke("slack", "U9"))?.userId).toBe("U9");
      const again = await gate.check(dmFrom("U9", "m5"), { place: "D1" }, "/");
      expect(again.kind).toBe("pair");
      expect(again.kind === "pair" ? again.reply : null).not.toContain(code);
      expect(await pairings.approved()).toEqual([]);
    });

    it("refuses an expired code and gives a new one on the next message", async () => {
      const { clock, pairings, gate } = await setUp({ slack: { dm: "pairing" }, pairingCodeMinutes: 5 });
      const first = await gate.check(dmFrom("U7", "m1"), { place: "D1" }, "/");
      const code = /\*\*([A-Z0-9-]{9})\*\*/.exec(first.kind === "pair" ? (first.reply ?? "") : "")?.[1] ?? "";
      await clock.advance(6 * 60_000);
      const outcome = await pairings.approve(code, "ADMIN");
      expect(outcome.outcome).toBe("expired");
      expect(await pairings.isApproved("slack", "U7")).toBe(false);
      const next = await gate.check(dmFrom("U7", "m2"), { place: "D1" }, "/");
      const newCode = /\*\*([A-Z0-9-]{9})\*\*/.exec(next.kind === "pair" ? (next.reply ?? "") : "")?.[1];
      expect(newCode).toBeDefined();
      expect(newCode).not.toBe(code);
      expect((await pairings.approve(newCode ?? "", "ADMIN")).outcome).toBe("approved");
    });

    it("lets listed users and admins in without a code, and keeps platforms apart", async () => {
      const { gate, pairings } = await setUp({ slack: { dm: "pairing", users: ["U1"] } });
      expect(await gate.check(dmFrom("U1", "m1"), { place: "D1" }, "/")).toEqual({ kind: "allow" });
      expect(await gate.check(dmFrom("ADMIN", "m2"), { place: "D1" }, "/")).toEqual({ kind: "allow" });
      const discordDm = { ...dmFrom("U5", "m3"), conversation: { platform: "discord", path: ["@dm", "9"] } };
      expect(await gate.check(discordDm, { place: "9" }, "/")).toEqual({ kind: "allow" });
      const console = { ...dmFrom("U5", "m4"), conversation: { platform: "console", path: ["main"] } };
      expect(await gate.check(console, { place: "main" }, "/")).toEqual({ kind: "allow" });
      expect(await pairings.pending()).toEqual([]);
    });
  });
}

definePairingSuite("sqlite", async () => {
  const directory = await tempDirectory();
  const store = await openStore(`sqlite://${join(directory.path, "access.db")}`, { logger: silentLogger });
  return { store, cleanup: () => directory.remove() };
});

describeWithRedis("redis", () => {
  const prefix = uniqueRedisPrefix("access");
  definePairingSuite("redis", async () => {
    const store = await openStore(`${TEST_REDIS_URL}?prefix=${encodeURIComponent(prefix)}`, {
      logger: silentLogger,
    });
    return { store, cleanup: async () => void (await removeRedisKeys(prefix)) };
  });
});

describe("normalizeCode", () => {
  it("accepts codes as people type them back", () => {
    expect(normalizeCode(" abcd-efgh ")).toBe("ABCDEFGH");
    expect(normalizeCode("ABCD EFGH")).toBe("ABCDEFGH");
  });
});
