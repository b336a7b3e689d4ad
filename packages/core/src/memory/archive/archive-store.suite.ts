import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ArchivedSession, ArchiveStore } from "./archive-store.ts";
import { sessionId, workspaceOf } from "./archive-store.ts";

export interface ArchiveBackend {
  /** Opens the archive; a second call must see what the first wrote (same file / same Redis prefix). */
  open(): Promise<ArchiveStore>;
  cleanup(): Promise<void>;
}

export function archivedSession(
  conversationKey: string,
  startedAt: number,
  fields: { summary: string; lines?: string[]; participants?: string[] },
): ArchivedSession {
  const transcript = (fields.lines ?? []).map((text, index) => ({
    role: index % 2 === 0 ? ("user" as const) : ("bot" as const),
    text,
  }));
  return {
    id: sessionId(conversationKey, startedAt),
    conversationKey,
    workspace: workspaceOf(conversationKey),
    participants: fields.participants ?? ["ana"],
    summary: fields.summary,
    transcript,
    messageCount: transcript.length,
    tokenEstimate: 10,
    startedAt,
    endedAt: startedAt + 1_000,
    reason: "idle",
  };
}

/** The behaviour every ArchiveStore keeps, whatever holds the sessions. */
export function defineArchiveStoreSuite(name: string, backend: () => Promise<ArchiveBackend>): void {
  describe(`ArchiveStore on ${name}`, () => {
    let current: ArchiveBackend;
    let archive: ArchiveStore;
    const dm = "slack:T1:D9";
    const channel = "slack:T1:C2:1700.1";
    const otherWorkspace = "slack:T7:C2:1700.1";
    beforeEach(async () => {
      current = await backend();
      archive = await current.open();
    });
    afterEach(async () => {
      await archive.close();
      await current.cleanup();
    });

    it("lists a conversation's newest sessions first and counts them", async () => {
      for (const at of [1_000, 3_000, 2_000])
        await archive.add(archivedSession(dm, at, { summary: `at ${at}` }));
      await archive.add(archivedSession(channel, 9_000, { summary: "elsewhere" }));
      expect((await archive.recent(dm, 2)).map((s) => s.summary)).toEqual(["at 3000", "at 2000"]);
      expect(await archive.count(dm)).toBe(3);
    });

    it("archiving the same session twice replaces it", async () => {
      await archive.add(archivedSession(dm, 1_000, { summary: "first try" }));
      await archive.add(archivedSession(dm, 1_000, { summary: "second try", lines: ["kiwi"] }));
      expect((await archive.recent(dm, 5)).map((s) => s.summary)).toEqual(["second try"]);
      expect((await archive.search({ text: "try", conversationKey: dm, limit: 5 })).length).toBe(1);
    });

    it("finds sessions by words in the summary or the transcript, best match first, at most `limit`", async () => {
      await archive.add(
        archivedSession(dm, 1_000, {
          summary: "Talked about the weather.",
          lines: ["is it raining?", "yes"],
        }),
      );
      await archive.add(
        archivedSession(dm, 2_000, {
          summary: "Invoice 42 was paid late.",
          lines: ["my invoice", "refund sent"],
        }),
      );
      await archive.add(
        archivedSession(dm, 3_000, { summary: "Laptop fan noise.", lines: ["the fan", "the invoice?"] }),
      );
      const hits = await archive.search({ text: "Invoice refund", conversationKey: dm, limit: 5 });
      expect(hits.map((hit) => hit.session.summary)).toEqual([
        "Invoice 42 was paid late.",
        "Laptop fan noise.",
      ]);
      expect(await archive.search({ text: "invoice", conversationKey: dm, limit: 1 })).toHaveLength(1);
      expect(await archive.search({ text: "raining", conversationKey: dm, limit: 5 })).toMatchObject([
        { session: { summary: "Talked about the weather." }, excerpt: expect.stringContaining("raining") },
      ]);
      expect(await archive.search({ text: "!!", conversationKey: dm, limit: 5 })).toEqual([]);
    });

    it("searches only this conversation unless a user is given, then that user's sessions in the workspace, never another user's", async () => {
      await archive.add(
        archivedSession(dm, 1_000, { summary: "ana's own conversation", participants: ["ana"] }),
      );
      await archive.add(
        archivedSession(channel, 2_000, {
          summary: "ana asked about the roadmap",
          participants: ["ana", "ben"],
        }),
      );
      await archive.add(
        archivedSession("slack:T1:D8", 3_000, { summary: "ben's private roadmap", participants: ["ben"] }),
      );
      await archive.add(
        archivedSession(otherWorkspace, 4_000, {
          summary: "ana roadmap in another workspace",
          participants: ["ana"],
        }),
      );
      const conversationOnly = await archive.search({ text: "roadmap", conversationKey: dm, limit: 5 });
      expect(conversationOnly).toEqual([]);
      const anaWide = await archive.search({
        text: "roadmap",
        conversationKey: dm,
        user: { id: "ana", workspace: "slack:T1" },
        limit: 5,
      });
      expect(anaWide.map((hit) => hit.session.summary)).toEqual(["ana asked about the roadmap"]);
      const benWide = await archive.search({
        text: "roadmap",
        conversationKey: "slack:T1:D8",
        user: { id: "ben", workspace: "slack:T1" },
        limit: 5,
      });
      expect(benWide.map((hit) => hit.session.summary).sort()).toEqual([
        "ana asked about the roadmap",
        "ben's private roadmap",
      ]);
    });

    it("a time frame keeps the sessions that overlap it; without words it lists the frame's, newest first", async () => {
      // Sessions last 1,000 ms (archivedSession): 1,000–2,000, 5,000–6,000, 9,000–10,000.
      for (const at of [1_000, 5_000, 9_000])
        await archive.add(archivedSession(dm, at, { summary: `budget talk at ${at}`, lines: ["budget"] }));
      await archive.add(
        archivedSession(channel, 5_500, { summary: "ana's budget elsewhere", participants: ["ana"] }),
      );
      const inFrame = async (text: string, from: number, to: number, user = false) =>
        (
          await archive.search({
            text,
            conversationKey: dm,
            between: { from, to },
            limit: 5,
            ...(user ? { user: { id: "ana", workspace: "slack:T1" } } : {}),
          })
        ).map((hit) => hit.session.summary);
      expect(await inFrame("budget", 4_000, 8_000)).toEqual(["budget talk at 5000"]);
      // Overlapping either edge counts: ended after `from`, started before `to`.
      expect((await inFrame("budget", 1_500, 5_001)).sort()).toEqual([
        "budget talk at 1000",
        "budget talk at 5000",
      ]);
      expect(await inFrame("budget", 11_000, 20_000)).toEqual([]);
      expect(await inFrame("", 0, 20_000)).toEqual([
        "budget talk at 9000",
        "budget talk at 5000",
        "budget talk at 1000",
      ]);
      expect((await inFrame("", 5_000, 5_600, true)).sort()).toEqual([
        "ana's budget elsewhere",
        "budget talk at 5000",
      ]);
      expect(await archive.search({ text: "", conversationKey: dm, limit: 5 })).toEqual([]);
    });

    it("forgets one conversation's sessions and nothing else; survives reopening", async () => {
      await archive.add(archivedSession(dm, 1_000, { summary: "dm one", lines: ["apples"] }));
      await archive.add(archivedSession(channel, 2_000, { summary: "channel one", lines: ["apples"] }));
      expect(await archive.forget(dm)).toBe(1);
      await archive.close();
      archive = await current.open();
      expect(await archive.count(dm)).toBe(0);
      expect(
        await archive.search({
          text: "apples",
          conversationKey: dm,
          user: { id: "ana", workspace: "slack:T1" },
          limit: 5,
        }),
      ).toMatchObject([{ session: { summary: "channel one" } }]);
    });
  });
}
