import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import type { Command } from "../commands/command.ts";
import { type CatchUpSources, catchUp } from "./catch-up.ts";

export const CATCH_UP = "catch_up";

/** `/summary`: the same on every platform. */
export function catchUpCommands(sources: CatchUpSources): Command[] {
  return [
    {
      name: "summary",
      summary: "catch up: what this thread was about (in a channel: its threads since your last message)",
      async run({ key, message }) {
        return { reply: await catchUp(sources, key, message.author.id) };
      },
    },
  ];
}

/** `catch_up` for the supervisor, so "catch me up" works in words too. The thread and the person come from the run. */
export function catchUpTool(sources: CatchUpSources): StructuredToolInterface {
  return tool(
    async (_args, config) => {
      const key: unknown = config?.configurable?.thread_id;
      const userId: unknown = config?.configurable?.user_id;
      if (typeof key !== "string" || key === "" || typeof userId !== "string")
        throw new Error("catch_up needs the conversation and the user of the run");
      const notes = await catchUp(sources, key, userId);
      return `${notes}\n\nTell the person, briefly and in your own words, what happened (decisions, open questions, who is waiting on what).`;
    },
    {
      name: CATCH_UP,
      description:
        "When someone asks to be caught up ('catch me up', 'what did I miss?', 'summarize this thread'): what memory wrote about this thread, " +
        "or in a channel, about its threads since the person's last message there.",
      schema: z.object({}),
      metadata: { acceptsIdempotencyKey: true },
    },
  );
}
