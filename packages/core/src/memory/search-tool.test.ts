import { beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.ts";
import { archivedSession } from "./archive/archive-store.suite.ts";
import { KeyvArchiveStore } from "./archive/keyv-archive-store.ts";
import { createSearchMemoryTool } from "./search-tool.ts";

const ANA_DM = "slack:T1:D1";
const BEN_DM = "slack:T1:D2";
const CHANNEL = "slack:T1:C1:1700.1";
const OTHER_WORKSPACE = "slack:T9:D1";

describe("search_memory", () => {
  let archive: KeyvArchiveStore;
  beforeEach(async () => {
    archive = new KeyvArchiveStore(await openStore("memory://"));
    await archive.add(
      archivedSession(ANA_DM, Date.UTC(2025, 0, 2), {
        summary: "Ana's salary review notes.",
        participants: ["ana"],
      }),
    );
    await archive.add(
      archivedSession(CHANNEL, Date.UTC(2025, 0, 3), {
        summary: "Team salary budget planning.",
        participants: ["ana", "ben"],
      }),
    );
    await archive.add(
      archivedSession(BEN_DM, Date.UTC(2025, 0, 4), {
        summary: "Ben's salary complaint.",
        participants: ["ben"],
      }),
    );
    await archive.add(
      archivedSession(OTHER_WORKSPACE, Date.UTC(2025, 0, 5), {
        summary: "Ana's salary elsewhere.",
        participants: ["ana"],
      }),
    );
  });
  const search = (scope: "conversation" | "user", thread: string, user: string, query = "salary") =>
    createSearchMemoryTool(archive, scope).invoke(
      { query },
      { configurable: { thread_id: thread, user_id: user } },
    );

  it("with scope conversation, finds only this conversation's sessions", async () => {
    const found = String(await search("conversation", ANA_DM, "ana"));
    expect(found).toContain("Ana's salary review notes.");
    expect(found).not.toMatch(/budget|complaint|elsewhere/);
    expect(found).toMatch(
      /^Earlier sessions matching "salary":\n1\. 2025-01-02 00:00, this conversation, 0 messages: Ana's salary review notes\.$/,
    );
  });

  it("with scope user, adds the user's other conversations in the workspace, and never another user's", async () => {
    const ana = String(await search("user", ANA_DM, "ana"));
    expect(ana).toContain("Ana's salary review notes.");
    expect(ana).toContain("another conversation, 0 messages: Team salary budget planning.");
    expect(ana).not.toContain("Ben's salary complaint.");
    expect(ana).not.toContain("elsewhere");

    const ben = String(await search("user", BEN_DM, "ben"));
    expect(ben).toContain("Ben's salary complaint.");
    expect(ben).toContain("Team salary budget planning.");
    expect(ben).not.toContain("Ana's salary review notes.");

    // A stranger in Ana's workspace sees nothing of hers, whatever the query says.
    expect(String(await search("user", "slack:T1:D3", "carol", "salary ana ben"))).toBe(
      'No earlier sessions mention "salary ana ben".',
    );
  });

  it("needs the run's conversation: a model cannot choose it", async () => {
    await expect(createSearchMemoryTool(archive, "user").invoke({ query: "salary" }, {})).rejects.toThrow(
      /thread_id/,
    );
  });
});
