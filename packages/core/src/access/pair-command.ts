import type { Command } from "../commands/command.ts";
import { formatCode, type Pairings } from "./pairings.ts";

/** `/pair <code>`: an admin approves a waiting person's pairing code from chat. */
export function pairCommand(options: { pairings: Pairings; admins: readonly string[] }): Command {
  const admins = new Set(options.admins);
  return {
    name: "pair",
    usage: "<code>",
    summary: "admins: let in a person who was given a pairing code",
    async run({ args, message, prefix }) {
      if (!admins.has(message.author.id))
        return { reply: "Only an admin (`requests.admins`) can approve pairing codes." };
      if (args === "") return { reply: `Say which code: \`${prefix}pair ABCD-EFGH\`.` };
      const result = await options.pairings.approve(args, message.author.id);
      switch (result.outcome) {
        case "unknown":
          return {
            reply: `No pairing code ${args} is waiting. Check the code, or ask the person to write again for a new one.`,
          };
        case "expired":
          return {
            reply: `Code ${formatCode(result.pending.code)} has expired. Ask ${result.pending.userName ?? result.pending.userId} to write again for a new one.`,
          };
        case "approved":
          return {
            reply: `Approved: ${result.approval.userName ?? result.approval.userId} (${result.approval.platform}) can talk to me now.`,
          };
      }
    },
  };
}
