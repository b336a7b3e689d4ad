import type { WebClient } from "@slack/web-api";
import { silentLogger } from "@switchboard/core/adapter";
import { describe, expect, it, vi } from "vitest";
import { threadConversation } from "../conversations.ts";
import { WorkingIndicator } from "./working-indicator.ts";

/** Records thread status calls the way the Web API client would make them. */
function statusClient() {
  const statuses: string[] = [];
  const client = {
    assistant: {
      threads: {
        setStatus: async (args: { status: string }) => {
          statuses.push(args.status);
          return { ok: true };
        },
      },
    },
  };
  return { statuses, client: client as unknown as WebClient };
}

describe("WorkingIndicator", () => {
  it("sets the thread status again before Slack's two-minute timeout drops it, until stopped", async () => {
    const { statuses, client } = statusClient();
    const indicator = new WorkingIndicator({
      client,
      logger: silentLogger,
      mode: "status",
      status: "is working on it…",
      reaction: "hourglass_flowing_sand",
      statusRefreshMs: 20,
    });
    const conversation = threadConversation("T1", "D1", "1700000000.000100");
    // The clock is fake: refreshes come exactly when due, and none can arrive late after the stop.
    vi.useFakeTimers();
    try {
      await indicator.start(conversation);
      expect(statuses).toEqual(["is working on it…"]);
      await vi.advanceTimersByTimeAsync(40);
      expect(statuses).toEqual(["is working on it…", "is working on it…", "is working on it…"]);
      await indicator.stop(conversation);
      const afterStop = statuses.length;
      await vi.advanceTimersByTimeAsync(200);
      expect(statuses.at(-1)).toBe("");
      expect(statuses.length).toBe(afterStop);
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows nothing in a private (ephemeral) conversation", async () => {
    const { statuses, client } = statusClient();
    const indicator = new WorkingIndicator({
      client,
      logger: silentLogger,
      mode: "auto",
      status: "…",
      reaction: "eyes",
    });
    await indicator.start({ platform: "slack", path: ["T1", "C1", "@U1"] });
    expect(statuses).toEqual([]);
  });
});
