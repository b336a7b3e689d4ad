import type { Clock } from "../runtime/clock.ts";
import type { MemoryInvoker } from "./memory-invoker.ts";

/** What `/new` and `/reset` ask of memory. */
export type FreshStart = "new" | "reset";

/**
 * `/new` and `/reset` on memory's side, before the team clears the thread. Both end the live session
 * the way going quiet would (archived with its summary, reason `requested`: searchable afterwards,
 * nothing lost). `/new` keeps what memory knows of the conversation in its prompts; `/reset` leaves
 * all of it out from now on, so the reply's "fresh start" is true. Returns the sentences that say so.
 */
export async function freshStartOfMemory(
  invoker: MemoryInvoker,
  clock: Clock,
  key: string,
  kind: FreshStart,
): Promise<string[]> {
  const archived = await invoker.endSession(key, "requested");
  const messages = archived
    ? ` (${archived.messageCount} message${archived.messageCount === 1 ? "" : "s"})`
    : "";
  if (kind === "new")
    return archived
      ? [
          `What was said so far is archived${messages}: its summary stays in what I remember here, and search_memory finds the details.`,
        ]
      : [];
  const day = new Date(clock.now()).toISOString().slice(0, 16).replace("T", " ");
  const leftOut = await invoker.leaveOutEarlier(
    key,
    `This conversation was reset on ${day} UTC at the person's request: what was said before is archived and left out here. search_memory finds it if the person refers to it.`,
  );
  if (archived)
    return [
      `What was said so far is archived${messages} and no longer in my prompts here; search_memory still finds it (\`forget confirm\` deletes it).`,
    ];
  return leftOut
    ? [
        "Nothing I remembered about this conversation is in my prompts any more; earlier sessions stay searchable (`forget confirm` deletes them).",
      ]
    : [];
}
