/**
 * Wires one Switchboard process from a validated configuration: store, checkpointer, models, the
 * agent team, adapters, engine. Every piece that is chosen by configuration is chosen here, and
 * only here.
 */

import {
  createMemory,
  createObservability,
  createRetryLater,
  Engine,
  type Logger,
  type Observability,
  openStore,
  RequestTracking,
  type Store,
  systemClock,
  type Team,
} from "@switchboard/core";
import type { Adapter } from "@switchboard/core/adapter";
import { DEFAULT_ENGINE_SETTINGS, humansConfigSchema, retryLaterOf } from "@switchboard/core/config";
import {
  AttachmentReader,
  BlobRetention,
  type BlobStore,
  catchUpCommands,
  catchUpTool,
  componentLogger,
  type EncryptionCounts,
  EncryptionMetrics,
  HumanHandoffs,
  humanCommands,
  Identities,
  type InitiatedRunner,
  Learnings,
  learningCommands,
  modelCallPolicy,
  openBlobStore,
  RetryLaterMetrics,
  StoreMetrics,
  SwitchboardMetrics,
  spaceOf,
  teamIdentities,
  timezoneCommand,
  WorkQueueMetrics,
} from "@switchboard/core/host";
import { ActiveAgentStore } from "@switchboard/core/records";
import type { LoadedConfig } from "../config/load-config.ts";
import type { Platform } from "../config/platform-sections.ts";
import type { Role, SwitchboardConfig } from "../config/schema.ts";
import { ConsoleAdapter } from "../console/console-adapter.ts";
import { applyConfig, type Reconfigured } from "../reload/apply-config.ts";
import type { ScaleOut } from "../scale-out/index.ts";
import { createConfiguredAccess } from "./access.ts";
import { type OpenedCheckpointer, openCheckpointerFor } from "./checkpointer.ts";
import { type HttpServer, startConfiguredHttpServer } from "./http-server.ts";
import { loadModelCatalog, type ModelCatalog } from "./model-catalog.ts";
import type { MountedConsole } from "./operator-console.ts";
import { createPlatformAdapters, type PlatformAdapter } from "./platform-adapters.ts";
import { openScaleOutFor, platformAdaptersForRole } from "./role.ts";
import { AdapterDirectory, createConfiguredSchedules, createTimeAndPlace } from "./schedules.ts";
import { createConfiguredTasks } from "./tasks.ts";
import { createTeam, memoryModel } from "./team.ts";
import { type OpenedTools, openTools } from "./tools.ts";

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

export interface App {
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
  /** Starts the engine (adapters, queued work), the sweepers (a worker: its sweep rounds), request tracking, HTTP. */
  start(): Promise<void>;
  /** Resolves when no turn is running and memory has recorded every answered turn. */
  idle(): Promise<void>;
  /** Where the HTTP server listens, once started (when `http:` is configured). */
  httpUrl(): string | undefined;
  /** The operator console's address and how its token was found, once started (with `http:`). */
  operatorConsole(): { url: string; token: MountedConsole["token"] } | undefined;
  /** Stops the engine (finishing or cancelling turns, releasing locks), then closes storage. */
  close(): Promise<void>;
  /**
   * A new configuration while running (SIGHUP, the file changed): applies what can change live —
   * agents' prompts and descriptions, limits, access lists, declared schedules — and names what
   * needs a restart. Queued and running work goes on.
   */
  reconfigure(next: SwitchboardConfig): Promise<Reconfigured>;
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

  const store = await openStore(config.store, { cwd, logger: componentLogger(logger, "store") });
  operatorConsole?.open(store);
  let checkpointer: OpenedCheckpointer | undefined;
  let tools: OpenedTools | undefined;
  let scaleOut: ScaleOut | undefined;
  let blobs: BlobStore | undefined;
  try {
    blobs = config.attachments.enabled
      ? await openBlobStore({
          ...(config.attachments.blobs ? { blobsUrl: config.attachments.blobs } : {}),
          storeUrl: config.store,
          cwd,
          retainDays: config.attachments.retainDays,
          onBackgroundError: (error) => logger.error(error.message, { cause: error.cause }),
        })
      : undefined;
    const openedBlobs = blobs;
    const retention = openedBlobs
      ? new BlobRetention({
          blobs: openedBlobs,
          retainDays: config.attachments.retainDays,
          clock: systemClock,
          logger: componentLogger(logger, "attachments"),
        })
      : undefined;
    if (openedBlobs)
      operatorConsole?.chat.useFiles({ blobs: openedBlobs, maxBytes: config.attachments.maxBytes });
    scaleOut = await openScaleOutFor(config, { cwd, logger: componentLogger(logger, "scale-out") });
    checkpointer = await openCheckpointerFor(config.checkpoints, { cwd, logger, store });
    tools = await openTools(config, {
      store,
      logger,
      ...(openedBlobs ? { files: { blobs: openedBlobs, maxBytes: config.attachments.maxBytes } } : {}),
    });
    // Metrics exist whenever the HTTP server does: that is where they are read.
    const openedToolServers = tools.mcp;
    // Metrics are built before the engine (it reports to them); they read its health once it exists.
    let builtEngine: Engine | undefined;
    const metrics = config.http
      ? new SwitchboardMetrics({
          atomic: store.atomic,
          toolServers: () => openedToolServers.states(),
          engineHealth: () => builtEngine?.health(),
        })
      : undefined;
    const observability = createObservability({
      store,
      steps: config.steps,
      usage: config.usage,
      clock: systemClock,
      logger: componentLogger(logger, "steps"),
      metrics,
    });
    const tracking = new RequestTracking({
      store,
      clock: systemClock,
      logger: componentLogger(logger, "runs"),
      config: config.requests,
      ...(config.http?.webhookSecret ? { webhookSecret: config.http.webhookSecret } : {}),
    });
    const memory = createMemory({
      store,
      storeUrl: config.store,
      cwd,
      checkpointer: checkpointer.saver,
      logger: componentLogger(logger, "memory"),
      config: config.memory,
      recorder: observability.memoryWork,
      modelCalls,
      // The offline model writes no memory entries: memory then stays extractive.
      ...memoryModel(config, models),
      ...(config.memory.summaryModel ? { summaryModel: models.modelFor(config.memory.summaryModel) } : {}),
      ...(openedBlobs ? { forgetAlso: (key: string) => openedBlobs.deleteSpace(spaceOf(key)) } : {}),
    });
    const learnings = new Learnings({
      store,
      config: config.memory.learnings,
      identities: new Identities(config.identities),
      clock: systemClock,
    });
    const catchUpSources = {
      notesOf: (key: string, since?: number) => memory.notesOf(key, since),
      runs: observability.steps,
      clock: systemClock,
    };
    const activeAgents = new ActiveAgentStore(store);
    const humans = new HumanHandoffs({
      store,
      activeAgents,
      config: humansConfigSchema.parse(config.team.humans ?? {}),
      summaryOf: async (key) => {
        const context = await memory.book.context(key);
        if (context?.content) return context.content;
        const entries = await memory.book.recentEntries(key, 5);
        return entries.length > 0 ? entries.map((entry) => `- ${entry.summary}`).join("\n") : undefined;
      },
      clock: systemClock,
      logger: componentLogger(logger, "humans"),
    });
    let builtTeam: Team | undefined;
    const tasks = createConfiguredTasks(config, {
      store,
      models,
      checkpointer,
      tools,
      memory,
      tracking,
      observability,
      modelCalls,
      team: () => {
        if (!builtTeam) throw new Error("the team is not built yet");
        return builtTeam;
      },
      logger: componentLogger(logger, "tasks"),
      ...(operatorConsole ? { observer: operatorConsole.taskObserver } : {}),
    });
    const directory = new AdapterDirectory();
    const timeAndPlace = createTimeAndPlace(config, {
      store,
      adapters: directory,
      logger: componentLogger(logger, "team"),
    });
    let trackedTeam: InitiatedRunner | undefined;
    const schedules = createConfiguredSchedules(config, {
      store,
      zones: timeAndPlace.zones,
      adapters: directory,
      tracking,
      memory,
      observability,
      team: () => {
        if (!trackedTeam) throw new Error("the team is not built yet");
        return trackedTeam;
      },
      ...(operatorConsole ? { changed: () => operatorConsole.feed.publish({ topic: "schedules" }) } : {}),
      logger: componentLogger(logger, "schedules"),
    });
    const team = createTeam(config, {
      store,
      models,
      logger: componentLogger(logger, "team"),
      checkpointer,
      tools,
      memory,
      tracking,
      observability,
      modelCalls,
      blobs: openedBlobs,
      tasks,
      schedules,
      situation: timeAndPlace.situation,
      humans,
      learnings,
      catchUp: config.memory.enabled ? catchUpTool(catchUpSources) : undefined,
      activeAgents,
      humansTool: config.team.humans !== undefined,
    });
    builtTeam = team;
    memory.attach(team);
    const tracked = tracking.track(team);
    trackedTeam = tracked;
    const responder = observability.observe(tracked);
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
    const consoleAdapter =
      platformAdapters.length === 0 && config.role === "all"
        ? new ConsoleAdapter({
            print: options.print,
            state: store.namespace<string>("console"),
            userId: options.consoleUser,
            ...(options.renderMarkdown ? { renderMarkdown: options.renderMarkdown } : {}),
          })
        : undefined;
    const baseAdapters: Adapter[] = [
      ...(consoleAdapter
        ? [consoleAdapter]
        : await platformAdaptersForRole(config, platformAdapters, scaleOut)),
      ...(operatorConsole ? [operatorConsole.chat] : []),
    ];
    const adapters = baseAdapters.map((adapter) => operatorConsole?.record(adapter) ?? adapter);
    directory.set(adapters);
    const attachments = openedBlobs
      ? new AttachmentReader({
          config: config.attachments,
          blobs: openedBlobs,
          store,
          sourceFor: (platform) => adapters.find((adapter) => adapter.platform === platform)?.attachments,
          logger: componentLogger(logger, "attachments"),
        })
      : undefined;
    const access = createConfiguredAccess(config, store);
    // What the running process was configured with; a reload compares the new file against it.
    let current = config;
    const engine = new Engine({
      store,
      adapters,
      access: access.gate,
      responder,
      continuations: retryLater.continuations(
        humans.continuations(tasks.continuations(schedules.continuations(responder))),
      ),
      laterRetries: retryLater.engine,
      commands: observability.recordCommands([
        ...team.commands,
        ...tasks.commands,
        ...schedules.commands,
        timezoneCommand(timeAndPlace.zones),
        ...humanCommands(humans),
        ...access.commands,
        // `/forget <id>` deletes a learning; anything else is memory's `/forget` (when memory is on).
        ...memory.commands.filter((command) => command.name !== "forget"),
        ...learningCommands(
          learnings,
          memory.commands.find((command) => command.name === "forget"),
        ),
        ...(config.memory.enabled ? catchUpCommands(catchUpSources) : []),
        ...tracking.commands(),
        ...observability.commands,
      ]),
      observers: [memory.observer, ...observability.observers],
      approvals: tracking.approvals,
      deliveryObserver: observability.deliveryObserver,
      ...(metrics ? { onAccept: (outcome, message) => metrics.accepted(outcome, message) } : {}),
      ...(scaleOut ? { scheduler: scaleOut.queue } : {}),
      modelEndpoints: () => models.endpoints.states(),
      identities: teamIdentities(config.team),
      ...(attachments && openedBlobs
        ? {
            readAttachments: async (messages, { key, signal }) =>
              attachments.read(messages, { key, signal, imagesAccepted: await team.imagesAccepted(key) }),
            openFile: (blob) => openedBlobs.open(blob),
          }
        : {}),
      settings: {
        commandPrefixes: config.engine.commandPrefixes,
        midRunPolicy: config.engine.midRunPolicy,
        lockTtlMs: config.engine.lockTtlSeconds * 1000,
        typingDelayMs: config.engine.typingDelayMs,
        maxConcurrentTurns: config.engine.maxConcurrentTurns,
        cpuSlots: {
          ...DEFAULT_ENGINE_SETTINGS.cpuSlots,
          targetDelayMs: config.engine.eventLoopDelayTargetMs,
        },
        // Past the team's own wall time: a safety net for work that hangs outside a model call.
        maxTurnMs: (config.limits.wallTimeSeconds + 60) * 1000,
      },
      logger: componentLogger(logger, "engine"),
    });
    builtEngine = engine;
    if (metrics && store.health) new StoreMetrics(metrics.registry, store.health);
    const workQueue = scaleOut?.queue;
    const queueMetrics =
      metrics && workQueue && scaleOut
        ? new WorkQueueMetrics(metrics.registry, () => workQueue.counts(), scaleOut.leading)
        : undefined;
    const opened = checkpointer;
    const openedTools = tools;
    const openedScaleOut = scaleOut;
    let http: HttpServer | undefined;
    let mounted: MountedConsole | undefined;
    return {
      engine,
      team,
      store,
      checkpointer: opened,
      console: consoleAdapter,
      platforms: platformAdapters.map((entry) => entry.platform),
      observability,
      toolServers: openedTools.mcp,
      blobs: openedBlobs,
      role: config.role,
      scaleOut: openedScaleOut?.description,
      async start() {
        await engine.start();
        // One process sweeps (requests, idle memory sessions) on its own timers; a cluster runs each
        // sweep once per cluster, as BullMQ rounds its workers take.
        tracking.bind(engine, { sweep: !openedScaleOut });
        tasks.bind(engine);
        humans.bind(engine);
        if (!openedScaleOut) humans.start();
        if (openedScaleOut) tasks.useScheduler(openedScaleOut.taskSteps);
        else tasks.startDriving();
        schedules.bind(engine);
        retryLater.bind(engine);
        await schedules.syncDeclared();
        // One process fires schedules from its due index; a cluster fires them in one worker's round.
        if (!openedScaleOut) {
          schedules.startDriving();
          retryLater.startDriving();
          memory.start();
          retention?.start();
        }
        await openedScaleOut?.startWorking(
          engine,
          {
            tracking,
            memory,
            tasks,
            humans,
            schedules,
            retryLater,
            ...(retention ? { files: retention } : {}),
          },
          queueMetrics,
        );
        for (const adapter of adapters) metrics?.platformConnected(adapter.platform, true);
        if (config.http) {
          mounted = await operatorConsole?.mount(
            {
              engine,
              team,
              tracking,
              memory: config.memory.enabled ? memory : undefined,
              tasks,
              humans,
              ...(config.memory.learnings.enabled ? { learnings } : {}),
              ...(attachments && openedBlobs
                ? {
                    files: {
                      reader: attachments,
                      blobs: openedBlobs,
                      maxBytes: config.attachments.maxBytes,
                      maxPerMessage: config.attachments.maxPerMessage,
                    },
                  }
                : {}),
              schedules,
              pairings: access.pairings,
              ...(observability.steps ? { steps: observability.steps } : {}),
              ...(observability.usage ? { usage: observability.usage } : {}),
              ...(workQueue ? { workQueue: () => workQueue.counts() } : {}),
            },
            config.http.consoleToken,
          );
          http = await startConfiguredHttpServer(config.http, {
            tracking,
            logger: componentLogger(logger, "http"),
            metrics,
            mounts: mounted ? [mounted] : [],
            engineHealth: () => engine.health(),
          });
        }
      },
      async reconfigure(next) {
        const result = await applyConfig({ team, access: access.gate, schedules }, current, next);
        current = next;
        return result;
      },
      async idle() {
        await schedules.idle();
        await retryLater.idle();
        await engine.idle();
        // A task's ending is queued work of its thread: answered once the task ends.
        await tasks.idle();
        await engine.idle();
        await memory.idle();
        await observability.flushed();
      },
      httpUrl: () => http?.url,
      operatorConsole: () =>
        http && mounted ? { url: `${http.url}${mounted.prefix}`, token: mounted.token } : undefined,
      async close() {
        try {
          await http?.close();
          // Workers stop taking drains while the engine cancels running turns (left queued, retried elsewhere).
          const stopping = openedScaleOut?.stopWorking();
          // Running task steps end first (each continues from its last step at the next start).
          await tasks.stop();
          await schedules.stop();
          await retryLater.stop();
          humans.stop();
          await engine.stop();
          await stopping;
          for (const adapter of adapters) metrics?.platformConnected(adapter.platform, false);
          await tracking.close();
          await memory.close();
          await retention?.stop();
          await observability.flushed();
        } finally {
          await openedScaleOut?.close();
          await openedTools.close();
          await opened.close();
          await openedBlobs?.close();
          await store.close();
        }
      },
    };
  } catch (error) {
    await scaleOut?.close();
    await tools?.close();
    await checkpointer?.close();
    await blobs?.close();
    await store.close();
    throw error;
  }
}

/** Decryption failures and events waiting for keys, for the platforms that encrypt (read when scraped). */
function registerEncryptionMetrics(metrics: SwitchboardMetrics, adapters: readonly PlatformAdapter[]): void {
  const sources = new Map<string, () => EncryptionCounts | undefined>();
  for (const { platform, encryptionCounts } of adapters)
    if (encryptionCounts) sources.set(platform, encryptionCounts);
  if (sources.size > 0) new EncryptionMetrics(metrics.registry, sources);
}
