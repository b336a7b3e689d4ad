/**
 * Wires one Switchboard process from a validated configuration: store, models, responder,
 * adapters, engine. Every piece that is chosen by configuration is chosen here, and only here.
 */
import {
  type Adapter,
  Engine,
  type Logger,
  modelRetryOptions,
  openStore,
  type Responder,
  type Store,
  Team,
} from "@switchboard/core";
import type { LoadedConfig } from "../config/load-config.ts";
import type { Platform } from "../config/platform-sections.ts";
import type { SwitchboardConfig } from "../config/schema.ts";
import { ConsoleAdapter } from "../console/console-adapter.ts";
import { type OpenedCheckpointer, openCheckpointerFor } from "./checkpointer.ts";
import { createModelCatalog, type ModelCatalog } from "./model-catalog.ts";
import { createPlatformAdapters } from "./platform-adapters.ts";
import { SingleAgentResponder } from "./single-agent-responder.ts";

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
  readonly store: Store;
  /** Present when no platform is enabled: the terminal chat. */
  readonly console: ConsoleAdapter | undefined;
  readonly platforms: readonly Platform[];
  /** Which responder answers: the agent team, or the single agent while the team cannot be wired. */
  readonly responder: "team" | "single-agent";
  /** Stops the engine (finishing or cancelling turns, releasing locks), then closes storage. */
  close(): Promise<void>;
}

export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { loaded, logger, cwd } = options;
  const { config } = loaded;
  const models = createModelCatalog(config.model, loaded.providerKeys);
  // Fails before anything is opened when a key is missing.
  models.modelFor(undefined);

  const store = await openStore(config.store, { cwd, logger });
  let checkpointer: OpenedCheckpointer | undefined;
  try {
    checkpointer = await openCheckpointerFor(config.checkpoints, { cwd, logger });
    const responder = createResponder(config, { store, models, logger, checkpointer });
    const platformAdapters = createPlatformAdapters(config, { logger });
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
      responder: responder.responder,
      commands: responder.responder.commands,
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
      store,
      console: consoleAdapter,
      platforms: platformAdapters.map((entry) => entry.platform),
      responder: responder.kind,
      async close() {
        try {
          await engine.stop();
        } finally {
          await opened?.close();
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

interface ResponderDeps {
  readonly store: Store;
  readonly models: ModelCatalog;
  readonly logger: Logger;
  readonly checkpointer: OpenedCheckpointer | undefined;
}

type ChosenResponder =
  | { kind: "team"; responder: Team }
  | { kind: "single-agent"; responder: Responder & { commands: SingleAgentResponder["commands"] } };

/**
 * The agent team when a checkpointer is available; otherwise one agent (the supervisor's prompt)
 * answering with one model call per message. Later features add their hooks to `new Team` here:
 * `contextFor` (memory), `attachedTools` / `needsApproval` (requests), `statusLines`.
 */
function createResponder(config: SwitchboardConfig, deps: ResponderDeps): ChosenResponder {
  const { store, models, logger, checkpointer } = deps;
  if (checkpointer) {
    const team = new Team({
      config: config.team,
      routing: config.routing,
      limits: config.limits,
      checkpointer: checkpointer.saver,
      store,
      modelFor: (model) => models.modelFor(model),
      describeModel: (model) => models.describe(model),
      logger,
    });
    return { kind: "team", responder: team };
  }
  return {
    kind: "single-agent",
    responder: new SingleAgentResponder({
      name: "supervisor",
      prompt: config.team.supervisor.prompt,
      model: models.modelFor(config.team.supervisor.model),
      modelDescription: models.describe(config.team.supervisor.model),
      retry: modelRetryOptions(models.specFor(config.team.supervisor.model)),
      store,
      logger,
    }),
  };
}
