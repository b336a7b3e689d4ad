import type { Command, CommandContext } from "../commands/command.ts";
import type { ApprovalGate } from "./approval-gate.ts";

/** /approve and /deny: the typed form of the Approve / Deny buttons, through the same gate. */
export function approvalCommands(gate: ApprovalGate): Command[] {
  const decide =
    (approved: boolean) =>
    async ({ key, message }: CommandContext) => {
      const actor = { id: message.author.id, name: message.author.displayName ?? message.author.id };
      const answer = await gate.decideWaitingIn(key, actor, approved);
      if (!answer) return { reply: "Nothing in this conversation is waiting for approval." };
      switch (answer.kind) {
        case "not-allowed":
          return { reply: "Only the person who asked, or an admin, can approve or deny this." };
        case "not-waiting":
          return { reply: "That action was already decided." };
        case "decided":
          return { reply: approved ? "Approved — continuing." : "Denied — that action will not run." };
      }
    };
  return [
    { name: "approve", summary: "let the waiting action run", run: decide(true) },
    { name: "deny", summary: "refuse the waiting action", run: decide(false) },
  ];
}
