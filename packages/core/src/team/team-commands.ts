import { HumanMessage } from "@langchain/core/messages";
import type { Command } from "../commands/command.ts";
import type { ActiveAgentStore } from "./active-agents.ts";
import { SUPERVISOR } from "./team-config.ts";
import type { TeamStateValue } from "./team-state.ts";

/** `/new`: a new topic, remembering what was said; `/reset`: a clean slate. */
export type FreshStartKind = "new" | "reset";

export interface AgentSummary {
  readonly name: string;
  readonly description: string;
  readonly model: string;
}

/**
 * What the team's commands act on. The Team provides it; declared here, below the Team, so this
 * file needs nothing from team.ts (the Team builds its commands from this file, never the reverse).
 */
export interface TeamControls {
  readonly activeAgents: Pick<ActiveAgentStore, "get">;
  readonly sticky: boolean;
  agents(): AgentSummary[];
  conversationState(key: string): Promise<TeamStateValue | undefined>;
  extraStatusLines(key: string, viewer: string): Promise<string[]>;
  returnToSupervisor(key: string): Promise<void>;
  /** Clears the thread's state; returns what else happened (memory archived…), one sentence each. */
  reset(key: string, userId: string, kind: FreshStartKind): Promise<string[]>;
}

/** /supervisor, /new, /reset, /agents, /status: answered before any model call, the same on every platform. */
export function teamCommands(team: TeamControls): Command[] {
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
      name: "new",
      summary: "start a new topic here: history and agent cleared, what was said archived, learnings kept",
      async run({ key, message }) {
        const said = await team.reset(key, message.author.id, "new");
        return {
          reply: [
            "New start: this conversation's history and agent are cleared. The supervisor answers next.",
            ...said,
          ].join(" "),
        };
      },
    },
    {
      name: "reset",
      summary:
        "a clean slate: history, agent and remembered context cleared (what was said stays searchable)",
      async run({ key, message }) {
        const said = await team.reset(key, message.author.id, "reset");
        return {
          reply: [
            "Fresh start: this conversation's history and agent are cleared. The supervisor answers next.",
            ...said,
          ].join(" "),
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
