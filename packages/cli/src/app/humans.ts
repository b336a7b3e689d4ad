/**
 * Hand-offs to people (`team.humans`): a thread an agent or a user hands to a person, the notice
 * the people get, and the thread's return to the bot.
 */
import { type Logger, type Memory, type Store, systemClock } from "@switchboard/core";
import { humansConfigSchema } from "@switchboard/core/config";
import { HumanHandoffs } from "@switchboard/core/host";
import type { ActiveAgentStore } from "@switchboard/core/records";
import type { SwitchboardConfig } from "../config/schema.ts";

export function createConfiguredHumans(
  config: SwitchboardConfig,
  deps: { store: Store; activeAgents: ActiveAgentStore; memory: Memory; logger: Logger },
): HumanHandoffs {
  const { memory } = deps;
  return new HumanHandoffs({
    store: deps.store,
    activeAgents: deps.activeAgents,
    config: humansConfigSchema.parse(config.team.humans ?? {}),
    // The notice tells the person what the thread is about: memory's context of it, else its latest notes.
    summaryOf: async (key) => {
      const context = await memory.book.context(key);
      if (context?.content) return context.content;
      const entries = await memory.book.recentEntries(key, 5);
      return entries.length > 0 ? entries.map((entry) => `- ${entry.summary}`).join("\n") : undefined;
    },
    clock: systemClock,
    logger: deps.logger,
  });
}
