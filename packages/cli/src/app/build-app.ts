/**
 * Wires one Switchboard process from a validated configuration: store, checkpointer, models, the
 * agent team, adapters, engine. Every piece that is chosen by configuration is chosen here, and
 * only here.
 */
import { type Adapter, Engine, type Logger, openStore, type Store, Team } from "@switchboard/core";
import type { LoadedConfig } from "../config/load-config.ts";
import type { Platform } from "../config/platform-sections.ts";
import type { SwitchboardConfig } from "../config/schema.ts";
import { ConsoleAdapter } from "../console/console-adapter.ts";
import { type OpenedCheckpointer, openCheckpointerFor } from "./checkpointer.ts";
import { createModelCatalog, type ModelCatalog } from "./model-catalog.ts";
import { createPlatformAdapters } from "./platform-adapters.ts";

export interface BuildAppOptions {
  readonly loaded: LoadedConfig;
  readonly logger: Logger;
  /** Relative SQLite paths resolve against it. */
  readonly cwd: string;
  /** Where the console chat goes (stdout); only used when no platform is enabled. */
  readonly print: (line: string) => void;
  /** The console user's id (the person at the terminal). */
  readonly consoleUser: string;
}

export interface App {
  readonly engine: Engine;
  readonly team: Team;
  readonly store: Store;
  readonly checkpointer: OpenedCheckpointer;
  /** Present when no platform is enabled: the terminal chat. */
  readonly console: ConsoleAdapter | undefined;
  readonly platforms: readonly Platform[];
  /** Stops the engine (finishing or cancelling turns, releasing locks), then closes storage. */
  close(): Promise<void>;
}

export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { loaded, logger, cwd } = options;
  const { config } = loaded;
  const models = createModelCatalog(config.model, loaded.providerKeys);

  const store = await openStore(config.store, { cwd, logger });
  let checkpointer: OpenedCheckpointer | undefined;
  try {
    checkpointer = await openCheckpointerFor(config.checkpoints, { cwd, logger });
    const team = createTeam(config, { store, models, logger, checkpointer });
    const platformAdapters = createPlatformAdapters(config, { logger, store });
    const consoleAdapter =
      platformAdapters.length === 0
        ? new ConsoleAdapter({
            print: options.print,
            state: store.namespace<string>("console"),
            userId: options.consoleUser,
          })
        : undefined;
    const adapters: Adapter[] = consoleAdapter
      ? [consoleAdapter]
      : platformAdapters.map((entry) => entry.adapter);
    const engine = new Engine({
      store,
      adapters,
      responder: team,
      commands: team.commands,
      settings: {
        commandPrefixes: config.engine.commandPrefixes,
        midRunPolicy: config.engine.midRunPolicy,
        lockTtlMs: config.engine.lockTtlSeconds * 1000,
      },
      logger,
    });
    const opened = checkpointer;
    return {
      engine,
      team,
      store,
      checkpointer: opened,
      console: consoleAdapter,
      platforms: platformAdapters.map((entry) => entry.platform),
      async close() {
        try {
          await engine.stop();
        } finally {
          await opened.close();
          await store.close();
        }
      },
    };
  } catch (error) {
    await checkpointer?.close();
    await store.close();
    throw error;
  }
}

interface TeamDeps {
  readonly store: Store;
  readonly models: ModelCatalog;
  readonly logger: Logger;
  readonly checkpointer: OpenedCheckpointer;
}

/**
 * The agent team. Later features add their hooks here, next to the section they read:
 * `contextFor` (memory:), `attachedTools` / `needsApproval` (requests:), `statusLines`, `tools`.
 */
function createTeam(config: SwitchboardConfig, deps: TeamDeps): Team {
  const { store, models, logger, checkpointer } = deps;
  return new Team({
    config: config.team,
    routing: config.routing,
    limits: config.limits,
    checkpointer: checkpointer.saver,
    store,
    modelFor: (model) => models.modelFor(model),
    describeModel: (model) => models.describe(model),
    logger,
  });
}
