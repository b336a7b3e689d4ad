import type { CommandSummary } from "@switchboard/core/adapter";
import { createStreamLogger } from "@switchboard/core/host";
import { buildApp } from "../app/build-app.ts";
import type { LoadedConfig } from "../config/load-config.ts";

/**
 * The chat commands the engine of this configuration registers (team, memory, requests, tasks…),
 * read from the engine `start` would build — on scratch storage, with no platform, HTTP server or
 * file store, and never started — so the Slack manifest and Discord's slash commands list exactly
 * what the bot will answer.
 */
export async function registeredCommands(loaded: LoadedConfig, cwd: string): Promise<CommandSummary[]> {
  const { matrix: _matrix, discord: _discord, slack: _slack, http: _http, ...rest } = loaded.config;
  const config = {
    ...rest,
    store: "memory://",
    checkpoints: "memory://",
    role: "all" as const,
    attachments: { ...rest.attachments, enabled: false },
  };
  const app = await buildApp({
    loaded: { ...loaded, config },
    logger: createStreamLogger("error", () => {}),
    cwd,
    print: () => {},
    consoleUser: "setup",
  });
  try {
    return app.engine.commands
      .list()
      .map(({ name, usage, summary }) => ({ name, summary, ...(usage === undefined ? {} : { usage }) }));
  } finally {
    await app.close();
  }
}
