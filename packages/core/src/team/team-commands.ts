import { HumanMessage } from "@langchain/core/messages";
import type { Command } from "../commands/command.ts";
import type { Team } from "./team.ts";
import { SUPERVISOR } from "./team-config.ts";

/** /supervisor, /reset, /agents, /status: answered before any model call, the same on every platform. */
export function teamCommands(team: Team): Command[] {
  return [
    {
      name: "supervisor",
      usage: "[message]",
      summary: "hand this conversation back to the supervisor (and let it answer the message)",
      async run({ key, args }) {
        await team.returnToSupervisor(key);
        return { reply: "Back to the supervisor.", ...(args ? { thenAnswer: args } : {}) };
      },
    },
    {
      name: "reset",
      summary: "forget this conversation and start fresh",
      async run({ key }) {
        await team.reset(key);
        return {
          reply:
            "Fresh start: this conversation's history and agent are cleared. The supervisor answers next.",
        };
      },
    },
    {
      name: "agents",
      summary: "list the agents and what each is for",
      async run() {
        const lines = team
          .agents()
          .map((agent) => `- **${agent.name}** — ${agent.description} (${agent.model})`);
        return { reply: ["Agents:", ...lines].join("\n") };
      },
    },
    {
      name: "status",
      summary: "who is answering here, since when, how many messages, which model",
      async run({ key, message }) {
        const active = await team.activeAgents.get(key);
        const state = await team.conversationState(key);
        const messages = state?.messages.filter((message) => HumanMessage.isInstance(message)).length ?? 0;
        const name = active?.agent ?? SUPERVISOR;
        const agent = team.agents().find((candidate) => candidate.name === name);
        const since = active ? ` since ${new Date(active.since).toISOString()}` : "";
        const routing = team.sticky
          ? "sticky routing on"
          : "sticky routing off: every message goes through the supervisor";
        return {
          reply: [
            `Answering here: **${name}**${since}.`,
            `Messages in this conversation: ${messages}.`,
            `Model: ${agent?.model ?? "unknown"}.`,
            `Routing: ${routing}.`,
            ...(message.encrypted
              ? ["Encryption: end-to-end — your messages and my answers here are encrypted."]
              : []),
            ...(await team.extraStatusLines(key, message.author.id)),
          ].join("\n"),
        };
      },
    },
  ];
}
