import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import { type Clock, systemClock } from "../runtime/clock.ts";
import type { ArchiveHit, ArchiveStore } from "./archive/archive-store.ts";
import { workspaceOf } from "./archive/archive-store.ts";
import type { MemoryConfig } from "./memory-config.ts";
import { describeTimeFrame, parseTimeFrame, type TimeFrame, TimeFrameError } from "./time-frame.ts";

export const SEARCH_MEMORY = "search_memory";
const MAX_RESULTS = 5;

/**
 * `search_memory` for the team's agents: earlier (archived) sessions of this conversation and,
 * with `scope: user`, the asking user's other conversations in the same workspace. The
 * conversation and the user come from the run (`thread_id`, `user_id`), never from the model,
 * so no prompt can reach another user's memory.
 */
export function createSearchMemoryTool(
  archive: ArchiveStore,
  scope: MemoryConfig["scope"],
  clock: Clock = systemClock,
): StructuredToolInterface {
  return tool(
    async ({ query, timeframe }, config) => {
      const { conversationKey, userId } = runIdentity(config);
      const user =
        scope === "user" && userId ? { id: userId, workspace: workspaceOf(conversationKey) } : undefined;
      let between: TimeFrame | undefined;
      try {
        between = timeframe ? parseTimeFrame(timeframe, clock.now()) : undefined;
      } catch (error) {
        if (error instanceof TimeFrameError) return `Not searched: ${error.message}.`;
        throw error;
      }
      const hits = await archive.search({
        text: query ?? "",
        conversationKey,
        limit: MAX_RESULTS,
        ...(user ? { user } : {}),
        ...(between ? { between } : {}),
      });
      return formatHits(query ?? "", hits, conversationKey, between);
    },
    {
      name: SEARCH_MEMORY,
      description:
        "Search earlier conversations with this user that are no longer in view, by keywords and/or a time frame. " +
        `Returns up to ${MAX_RESULTS} past sessions with a short summary and an excerpt. Use it when the user refers to something discussed before ` +
        "('what did we decide last month?': query 'decide', timeframe 'last month').",
      schema: z
        .object({
          query: z
            .string()
            .optional()
            .describe("Keywords, e.g. 'invoice refund'. May be left out with a timeframe."),
          timeframe: z
            .string()
            .optional()
            .describe(
              "Only sessions in this time (UTC): today, yesterday, this week, last week, this month, last month, last N days/weeks/months, " +
                "an ISO date (2026-03-14), a month (2026-03), or two joined by '..' (2026-03-01..2026-03-15).",
            ),
        })
        .refine((args) => (args.query ?? "").trim() !== "" || args.timeframe !== undefined, {
          message: "give keywords, a timeframe, or both",
        }),
    },
  );
}

function runIdentity(config: RunnableConfig | undefined): {
  conversationKey: string;
  userId: string | undefined;
} {
  const configurable = config?.configurable ?? {};
  const threadId: unknown = configurable.thread_id;
  const userId: unknown = configurable.user_id;
  if (typeof threadId !== "string" || threadId === "")
    throw new Error("search_memory needs the conversation (thread_id) of the run");
  return {
    conversationKey: threadId,
    userId: typeof userId === "string" && userId !== "" ? userId : undefined,
  };
}

export function formatHits(
  query: string,
  hits: readonly ArchiveHit[],
  conversationKey: string,
  between?: TimeFrame,
): string {
  const what = [query.trim() ? `matching "${query}"` : "", between ? `in ${describeTimeFrame(between)}` : ""]
    .filter((part) => part !== "")
    .join(" ");
  if (hits.length === 0)
    return query.trim()
      ? `No earlier sessions mention "${query}"${between ? ` in ${describeTimeFrame(between)}` : ""}.`
      : `No earlier sessions ${what}.`;
  const lines = hits.map(({ session, excerpt }, index) => {
    const when = new Date(session.startedAt).toISOString().slice(0, 16).replace("T", " ");
    const where = session.conversationKey === conversationKey ? "this conversation" : "another conversation";
    const quote = excerpt ? `\n   Excerpt: ${excerpt}` : "";
    return `${index + 1}. ${when}, ${where}, ${session.messageCount} messages: ${session.summary}${quote}`;
  });
  return [`Earlier sessions ${what}:`, ...lines].join("\n");
}
