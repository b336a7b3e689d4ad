/**
 * Wires one Switchboard process from a validated configuration: store, checkpointer, models, the
 * agent team, adapters, engine. Every piece that is chosen by configuration is chosen here, and
 * only here; each part is built by its own file in this folder, and this one keeps the order.
 */

import {
  createRetryLater,
  type Engine,
  type Logger,
  type Observability,
  RequestTracking,
  type Store,
  systemClock,
  type Team,
} from "@switchboard/core";
import { retryLaterOf } from "@switchboard/core/config";
import {
  AttachmentReader,
  type BlobStore,
  componentLogger,
  modelCallPolicy,
  RetryLaterMetrics,
  StoreMetrics,
  WorkQueueMetrics,
} from "@switchboard/core/host";
import { ActiveAgentStore } from "@switchboard/core/records";
import type { LoadedConfig } from "../config/load-config.ts";
import type { Platform } from "../config/platform-sections.ts";
import type { Role } from "../config/schema.ts";
import type { ConsoleAdapter } from "../console/console-adapter.ts";
import { createConfiguredAccess } from "./access.ts";
import type { OpenedCheckpointer } from "./checkpointer.ts";
import { createConfiguredEngine } from "./engine.ts";
import { createEngineAdapters } from "./engine-adapters.ts";
import { createConfiguredHumans } from "./humans.ts";
import { type AppLifecycle, appLifecycle } from "./lifecycle.ts";
import { createConfiguredMemory } from "./memory.ts";
import { loadModelCatalog, type ModelCatalog } from "./model-catalog.ts";
import { createConfiguredObservability, registerEncryptionMetrics } from "./observability.ts";
import { createPlatformAdapters } from "./platform-adapters.ts";
import { openResources } from "./resources.ts";
import { createTeamAndWork } from "./team-and-work.ts";
import type { OpenedTools } from "./tools.ts";

export interface BuildAppOptions {
  readonly loaded: LoadedConfig;
  readonly logger: Logger;
  /** Relative SQLite paths resolve against it. */
  readonly cwd: string;
  /** Where the console chat goes (stdout); only used when no platform is enabled. */
  readonly print: (line: string) => void;
  /** The console user's id (the person at the terminal). */
  readonly consoleUser: string;
  /** How answers' markdown is shown in the console chat (rendered on a terminal); as written if absent. */
  readonly renderMarkdown?: (markdown: string) => string;
  /** Replaces the models the configuration names (end-to-end tests script them). */
  readonly models?: ModelCatalog;
}

/** The built process: its parts, and (AppLifecycle) starting, reloading and stopping it. */
export interface App extends AppLifecycle {
  readonly engine: Engine;
  readonly team: Team;
  readonly store: Store;
  readonly checkpointer: OpenedCheckpointer;
  /** Present when no platform is enabled: the terminal chat. */
  readonly console: ConsoleAdapter | undefined;
  readonly platforms: readonly Platform[];
  /** The run-steps log, usage roll-ups and metrics. */
  readonly observability: Observability;
  readonly role: Role;
  /** Where the ingress and worker roles queue their work (BullMQ); absent for role `all`. */
  readonly scaleOut: string | undefined;
  /** The MCP servers and their state (`states()`, `onChange`), for health and metrics. */
  readonly toolServers: OpenedTools["mcp"];
  /** Where file bytes are kept (absent when `attachments.enabled` is off). */
  readonly blobs: BlobStore | undefined;
}

export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { loaded, cwd } = options;
  const { config } = loaded;
  // One policy for every model call of the process: the team's, memory's and summaries'.
  const modelCalls = modelCallPolicy(config.model);
  // With the HTTP server on, the operator console is too: it sees every adapter and the log.
  // Loaded only then: a process without it never loads the web stack.
  const operatorConsole = config.http
    ? new (await import("./operator-console.ts")).OperatorConsole(options.logger)
    : undefined;
  const logger = operatorConsole?.logger ?? options.logger;
  const models = options.models ?? (await loadModelCatalog(loaded));

  const resources = await openResources(config, { cwd, logger });
  const { store, blobs, scaleOut, checkpointer, tools } = resources;
  try {
    operatorConsole?.open(store);
    if (blobs) operatorConsole?.chat.useFiles({ blobs, maxBytes: config.attachments.maxBytes });
    let builtEngine: Engine | undefined;
    const { metrics, observability } = createConfiguredObservability(config, {
      store,
      toolServers: tools.mcp,
      engineHealth: () => builtEngine?.health(),
      logger,
    });
    const tracking = new RequestTracking({
      store,
      clock: systemClock,
      logger: componentLogger(logger, "runs"),
      config: config.requests,
      ...(config.http?.webhookSecret ? { webhookSecret: config.http.webhookSecret } : {}),
    });
    const { memory, learnings, catchUp } = createConfiguredMemory(config, {
      store,
      cwd,
      checkpointer,
      models,
      modelCalls,
      observability,
      blobs,
      logger: componentLogger(logger, "memory"),
    });
    const activeAgents = new ActiveAgentStore(store);
    const humans = createConfiguredHumans(config, {
      store,
      activeAgents,
      memory,
      logger: componentLogger(logger, "humans"),
    });
    const { team, responder, tasks, schedules, timeAndPlace, directory } = createTeamAndWork(config, {
      store,
      models,
      checkpointer,
      tools,
      memory,
      learnings,
      catchUp,
      humans,
      activeAgents,
      tracking,
      observability,
      modelCalls,
      blobs,
      taskObserver: operatorConsole?.taskObserver,
      schedulesChanged: operatorConsole
        ? () => operatorConsole.feed.publish({ topic: "schedules" })
        : undefined,
      logger,
    });
    // Turns the model could not answer are tried again later, answered through the same team.
    const retryLater = createRetryLater({
      store,
      settings: retryLaterOf(config.model),
      responder: () => responder,
      observers: () => [memory.observer, ...observability.observers],
      ...(metrics
        ? // Read when scraped, after start-up.
          { observer: new RetryLaterMetrics(metrics.registry, () => retryLater.store.waiting()) }
        : {}),
      clock: systemClock,
      logger: componentLogger(logger, "retry-later"),
    });
    const cluster = scaleOut;
    const platformAdapters = await createPlatformAdapters(config, {
      logger,
      store,
      ...(cluster ? { callLeader: (platform, request) => cluster.callLeader(platform, request) } : {}),
    });
    if (metrics) registerEncryptionMetrics(metrics, platformAdapters);
    const { console: consoleAdapter, adapters } = await createEngineAdapters(config, platformAdapters, {
      store,
      scaleOut,
      operatorConsole,
      print: options.print,
      consoleUser: options.consoleUser,
      renderMarkdown: options.renderMarkdown,
    });
    directory.set(adapters);
    const attachments = blobs
      ? new AttachmentReader({
          config: config.attachments,
          blobs,
          store,
          sourceFor: (platform) => adapters.find((adapter) => adapter.platform === platform)?.attachments,
          logger: componentLogger(logger, "attachments"),
        })
      : undefined;
    const access = createConfiguredAccess(config, store);
    const engine = createConfiguredEngine(config, {
      store,
      adapters,
      access,
      responder,
      team,
      memory,
      learnings,
      catchUp,
      humans,
      tasks,
      schedules,
      zones: timeAndPlace.zones,
      retryLater,
      tracking,
      observability,
      metrics,
      scaleOut,
      models,
      attachments,
      blobs,
      logger: componentLogger(logger, "engine"),
    });
    builtEngine = engine;
    if (metrics && store.health) new StoreMetrics(metrics.registry, store.health);
    const workQueue = scaleOut?.queue;
    const queueMetrics =
      metrics && workQueue && scaleOut
        ? new WorkQueueMetrics(metrics.registry, () => workQueue.counts(), scaleOut.leading)
        : undefined;
    return {
      engine,
      team,
      store,
      checkpointer,
      console: consoleAdapter,
      platforms: platformAdapters.map((entry) => entry.platform),
      observability,
      toolServers: tools.mcp,
      blobs,
      role: config.role,
      scaleOut: scaleOut?.description,
      ...appLifecycle(config, {
        resources,
        engine,
        team,
        adapters,
        tracking,
        memory,
        learnings,
        tasks,
        humans,
        schedules,
        retryLater,
        access,
        observability,
        metrics,
        queueMetrics,
        attachments,
        operatorConsole,
        logger,
      }),
    };
  } catch (error) {
    await resources.close();
    throw error;
  }
}
