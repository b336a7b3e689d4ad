import { ErrorCode, type WebClient } from "@slack/web-api";
import { silentLogger } from "@switchboard/core/adapter";
import { createMemoryLogger } from "@switchboard/core/testing";
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

  it("after Slack rate-limits it, shows no indicator anywhere until the Retry-After, and takes a refused reaction off later", async () => {
    const calls: string[] = [];
    /** Slack's refusal as the client hands it back (rejectRateLimitedCalls). */
    const refusals: Record<string, number[]> = { add: [30], remove: [5] };
    const answer = (method: "add" | "remove") => async () => {
      calls.push(method);
      const seconds = refusals[method]?.shift();
      if (seconds !== undefined)
        throw Object.assign(new Error("rate limited"), {
          code: ErrorCode.RateLimitedError,
          retryAfter: seconds,
        });
      return { ok: true };
    };
    const client = { reactions: { add: answer("add"), remove: answer("remove") } } as unknown as WebClient;
    const logger = createMemoryLogger();
    const indicator = new WorkingIndicator({
      client,
      logger,
      mode: "reaction",
      status: "…",
      reaction: "eyes",
    });
    const thread = (ts: string) => {
      const conversation = threadConversation("T1", "C1", ts);
      indicator.noteOrigin(conversation, "C1", ts);
      return conversation;
    };
    vi.useFakeTimers();
    try {
      await indicator.start(thread("1.1"));
      expect(calls).toEqual(["add"]);
      expect(logger.lines.map((line) => line.message)).toEqual([
        "Slack rate-limited the working indicator; none is shown until it allows",
      ]);
      // Within the Retry-After no turn asks again, in any thread.
      await indicator.start(thread("2.2"));
      await vi.advanceTimersByTimeAsync(29_000);
      await indicator.start(thread("3.3"));
      expect(calls).toEqual(["add"]);

      await vi.advanceTimersByTimeAsync(1_000);
      const shown = thread("4.4");
      await indicator.start(shown);
      expect(calls).toEqual(["add", "add"]);
      // Taking it off is refused for 5 s: the turn does not wait, the reaction comes off after.
      await indicator.stop(shown);
      expect(calls).toEqual(["add", "add", "remove"]);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(calls).toEqual(["add", "add", "remove", "remove"]);
    } finally {
      vi.useRealTimers();
    }
  });
});
