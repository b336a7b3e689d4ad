/**
 * Wires one Switchboard process from a validated configuration: store, checkpointer, models, the
 * agent team, adapters, engine. Every piece that is chosen by configuration is chosen here, and
 * only here.
 */
import {
  type Adapter,
  createHttpTool,
  createMemory,
  Engine,
  type Logger,
  type Memory,
  openStore,
  RequestTracking,
  type Store,
  systemClock,
  Team,
  ToolCatalog,
} from "@switchboard/core";
import type { LoadedConfig } from "../config/load-config.ts";
import type { Platform } from "../config/platform-sections.ts";
import type { SwitchboardConfig } from "../config/schema.ts";
import { ConsoleAdapter } from "../console/console-adapter.ts";
import { type OpenedCheckpointer, openCheckpointerFor } from "./checkpointer.ts";
import { type HttpServer, startConfiguredHttpServer } from "./http-server.ts";
import { loadModelCatalog, type ModelCatalog } from "./model-catalog.ts";
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
  /** Starts the engine (adapters, queued work), memory's sweeper, request tracking and the HTTP server. */
  start(): Promise<void>;
  /** Resolves when no turn is running and memory has recorded every answered turn. */
  idle(): Promise<void>;
  /** Where the HTTP server listens, once started (when `http:` is configured). */
  httpUrl(): string | undefined;
  /** Stops the engine (finishing or cancelling turns, releasing locks), then closes storage. */
  close(): Promise<void>;
}

export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { loaded, logger, cwd } = options;
  const { config } = loaded;
  const models = await loadModelCatalog(loaded);

  const store = await openStore(config.store, { cwd, logger });
  let checkpointer: OpenedCheckpointer | undefined;
  try {
    checkpointer = await openCheckpointerFor(config.checkpoints, { cwd, logger });
    const catalog = new ToolCatalog(
      config.tools.map((tool) => ({ tool: createHttpTool(tool), requiresApproval: tool.requiresApproval })),
      store,
    );
    const tracking = new RequestTracking({
      store,
      clock: systemClock,
      logger,
      config: config.requests,
      ...(config.http?.webhookSecret ? { webhookSecret: config.http.webhookSecret } : {}),
    });
    const memory = createMemory({
      store,
      storeUrl: config.store,
      cwd,
      checkpointer: checkpointer.saver,
      logger,
      config: config.memory,
      // The offline model writes no memory entries: memory then stays extractive.
      ...(models.defaultSpec.provider === "offline" ? {} : { model: models.modelFor(undefined) }),
      ...(config.memory.summaryModel ? { summaryModel: models.modelFor(config.memory.summaryModel) } : {}),
    });
    const team = createTeam(config, { store, models, logger, checkpointer, catalog, memory, tracking });
    memory.attach(team);
    const responder = tracking.track(team);
    const platformAdapters = await createPlatformAdapters(config, { logger, store });
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
      responder,
      continuations: responder,
      commands: [...team.commands, ...memory.commands, ...tracking.commands()],
      observers: [memory.observer],
      settings: {
        commandPrefixes: config.engine.commandPrefixes,
        midRunPolicy: config.engine.midRunPolicy,
        lockTtlMs: config.engine.lockTtlSeconds * 1000,
      },
      logger,
    });
    const opened = checkpointer;
    let http: HttpServer | undefined;
    return {
      engine,
      team,
      store,
      checkpointer: opened,
      console: consoleAdapter,
      platforms: platformAdapters.map((entry) => entry.platform),
      async start() {
        await engine.start();
        tracking.bind(engine);
        memory.start();
        if (config.http) http = await startConfiguredHttpServer(config.http, { tracking, logger });
      },
      async idle() {
        await engine.idle();
        await memory.idle();
      },
      httpUrl: () => http?.url,
      async close() {
        try {
          await http?.close();
          await engine.stop();
          await tracking.close();
          await memory.close();
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
  readonly catalog: ToolCatalog;
  readonly memory: Memory;
  readonly tracking: RequestTracking;
}

/** The agent team, with the hooks of memory (context, search), the tool catalog and request tracking. */
function createTeam(config: SwitchboardConfig, deps: TeamDeps): Team {
  const { store, models, logger, checkpointer, catalog, memory, tracking } = deps;
  return new Team({
    config: config.team,
    routing: config.routing,
    limits: config.limits,
    checkpointer: checkpointer.saver,
    store,
    modelFor: (model) => models.modelFor(model),
    describeModel: (model) => models.describe(model),
    tools: { ...catalog.registry(), ...memory.tools },
    contextFor: memory.contextFor,
    attachedTools: (key, agent) => catalog.attachedTools(key, agent),
    needsApproval: (name) => catalog.needsApproval(name),
    statusLines: tracking.statusLines,
    logger,
  });
}
