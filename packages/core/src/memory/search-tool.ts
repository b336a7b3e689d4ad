import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import type { ArchiveHit, ArchiveStore } from "./archive/archive-store.ts";
import { workspaceOf } from "./archive/archive-store.ts";
import type { MemoryConfig } from "./memory-config.ts";

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
): StructuredToolInterface {
  return tool(
    async ({ query }, config) => {
      const { conversationKey, userId } = runIdentity(config);
      const user =
        scope === "user" && userId ? { id: userId, workspace: workspaceOf(conversationKey) } : undefined;
      const hits = await archive.search({
        text: query,
        conversationKey,
        limit: MAX_RESULTS,
        ...(user ? { user } : {}),
      });
      return formatHits(query, hits, conversationKey);
    },
    {
      name: SEARCH_MEMORY,
      description:
        "Search earlier conversations with this user that are no longer in view, by keywords. " +
        `Returns up to ${MAX_RESULTS} past sessions with a short summary and an excerpt. Use it when the user refers to something discussed before.`,
      schema: z.object({ query: z.string().min(1).describe("Keywords, e.g. 'invoice refund march'.") }),
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

export function formatHits(query: string, hits: readonly ArchiveHit[], conversationKey: string): string {
  if (hits.length === 0) return `No earlier sessions mention "${query}".`;
  const lines = hits.map(({ session, excerpt }, index) => {
    const when = new Date(session.startedAt).toISOString().slice(0, 16).replace("T", " ");
    const where = session.conversationKey === conversationKey ? "this conversation" : "another conversation";
    const quote = excerpt ? `\n   Excerpt: ${excerpt}` : "";
    return `${index + 1}. ${when}, ${where}, ${session.messageCount} messages: ${session.summary}${quote}`;
  });
  return [`Earlier sessions matching "${query}":`, ...lines].join("\n");
}
