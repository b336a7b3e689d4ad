import type { Command, CommandContext } from "../commands/command.ts";
import type { RequestTracker } from "./request-tracker.ts";
import { CONTINUATION, type RunScheduler } from "./tracked-team.ts";

/** /approve and /deny: only the person who asked, or a configured admin, decides. */
export function approvalCommands(options: {
  tracker: RequestTracker;
  scheduler: () => RunScheduler;
  admins: readonly string[];
}): Command[] {
  const decide =
    (approved: boolean) =>
    async ({ key, message }: CommandContext) => {
      const waiting = (await options.tracker.openIn(key))
        .filter((request) => request.status === "awaiting_approval")
        .at(-1);
      if (!waiting) return { reply: "Nothing in this conversation is waiting for approval." };
      const allowed =
        message.author.id === waiting.origin.authorId || options.admins.includes(message.author.id);
      if (!allowed) return { reply: "Only the person who asked, or an admin, can approve or deny this." };
      // Leaves awaiting_approval at once, so a second /approve cannot resume twice.
      await options.tracker.setStatus(waiting.id, "active");
      await options.scheduler().enqueueContinuation(key, {
        requestId: waiting.id,
        type: CONTINUATION.approval,
        data: {
          approved,
          by: message.author.displayName ?? message.author.id,
          parentRunId: waiting.runs.at(-1)?.runId ?? "",
        },
      });
      return { reply: approved ? "Approved — continuing." : "Denied — that action will not run." };
    };
  return [
    { name: "approve", summary: "let the waiting action run", run: decide(true) },
    { name: "deny", summary: "refuse the waiting action", run: decide(false) },
  ];
}
