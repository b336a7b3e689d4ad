import type { Command, CommandContext } from "../commands/command.ts";
import type { Clock } from "../runtime/clock.ts";
import type { AtomicStore } from "../store/types.ts";
import { decideApproval, NotAwaitingApprovalError } from "./approval-decision.ts";
import type { RequestTracker } from "./request-tracker.ts";
import type { RunScheduler } from "./tracked-team.ts";

/** /approve and /deny: only the person who asked, or a configured admin, decides. */
export function approvalCommands(options: {
  tracker: RequestTracker;
  scheduler: () => RunScheduler;
  atomic: AtomicStore;
  clock: Clock;
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
      try {
        await decideApproval(
          { tracker: options.tracker, scheduler: options.scheduler(), atomic: options.atomic },
          waiting,
          { approved, by: message.author.displayName ?? message.author.id, via: "chat" },
          options.clock.now(),
        );
      } catch (error) {
        if (!(error instanceof NotAwaitingApprovalError)) throw error;
        return { reply: "That action was already decided." };
      }
      return { reply: approved ? "Approved — continuing." : "Denied — that action will not run." };
    };
  return [
    { name: "approve", summary: "let the waiting action run", run: decide(true) },
    { name: "deny", summary: "refuse the waiting action", run: decide(false) },
  ];
}
