import type { Command } from "../commands/command.ts";
import { encodeConversationKey } from "../conversation/ref.ts";
import type { Clock } from "../runtime/clock.ts";
import { describeTotals, usageTable } from "./format-usage.ts";
import { type UsageBook, usageDay } from "./usage-book.ts";

const DAY_MS = 86_400_000;
const WEEK = 7;

/**
 * `/usage`: this conversation's model calls, tokens and cost today and over the last 7 days.
 * `/usage all` (admins): today's usage of the whole workspace, by conversation and by model.
 */
export function usageCommand(options: { book: UsageBook; clock: Clock; admins: readonly string[] }): Command {
  const { book, clock, admins } = options;
  const lastDays = (count: number) =>
    Array.from({ length: count }, (_, back) => usageDay(clock.now() - back * DAY_MS)).reverse();
  return {
    name: "usage",
    usage: "[all]",
    summary: "model calls, tokens and cost of this conversation (admins: `all` for the workspace today)",
    async run(context) {
      if (context.args.toLowerCase() === "all") {
        if (!admins.includes(context.message.author.id))
          return { reply: "Only an admin (usage.admins) can see the whole workspace's usage." };
        const { platform, path } = context.conversation;
        const workspace = encodeConversationKey({ platform, path: path.slice(0, 1) });
        const today = lastDays(1);
        const conversations = (await book.top("conversation", today, 1_000)).filter(
          (row) => row.id === workspace || row.id.startsWith(`${workspace}:`),
        );
        const models = await book.top("model", today, 20);
        return {
          reply: [
            `Usage today (${today[0]}, UTC) in ${workspace}:`,
            "```",
            usageTable("conversation", conversations.slice(0, 20)),
            "",
            usageTable("model (all workspaces)", models),
            "```",
          ].join("\n"),
        };
      }
      const [today, week] = await Promise.all([
        book.total("conversation", context.key, lastDays(1)),
        book.total("conversation", context.key, lastDays(WEEK)),
      ]);
      return {
        reply: [
          "Usage of this conversation:",
          `- today (UTC): ${describeTotals(today)}`,
          `- last ${WEEK} days: ${describeTotals(week)}`,
        ].join("\n"),
      };
    },
  };
}
