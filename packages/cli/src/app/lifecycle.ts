/**
 * The life of a built process: what starts in which order (the engine first, the HTTP server
 * last), what a reload changes, when it is idle, and the order of stopping (work first, the
 * opened resources last). One process runs its sweeps on its own timers; in a cluster each sweep
 * is a round one worker takes.
 */
import type {
  Engine,
  Logger,
  Memory,
  Observability,
  RequestTracking,
  RetryLater,
  Schedules,
  Tasks,
  Team,
} from "@switchboard/core";
import type { Adapter } from "@switchboard/core/adapter";
import {
  type AttachmentReader,
  componentLogger,
  type HumanHandoffs,
  type Learnings,
  type SwitchboardMetrics,
  type WorkQueueMetrics,
} from "@switchboard/core/host";
import type { SwitchboardConfig } from "../config/schema.ts";
import { applyConfig, type Reconfigured } from "../reload/apply-config.ts";
import type { ConfiguredAccess } from "./access.ts";
import { type HttpServer, startConfiguredHttpServer } from "./http-server.ts";
import type { MountedConsole, OperatorConsole } from "./operator-console.ts";
import type { OpenedResources } from "./resources.ts";

export interface AppLifecycle {
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

export interface BuiltParts {
  readonly resources: OpenedResources;
  readonly engine: Engine;
  readonly team: Team;
  readonly adapters: readonly Adapter[];
  readonly tracking: RequestTracking;
  readonly memory: Memory;
  readonly learnings: Learnings;
  readonly tasks: Tasks;
  readonly humans: HumanHandoffs;
  readonly schedules: Schedules;
  readonly retryLater: RetryLater;
  readonly access: ConfiguredAccess;
  readonly observability: Observability;
  readonly metrics: SwitchboardMetrics | undefined;
  /** The cluster's work queue in the metrics; it also hears the drains of a worker. */
  readonly queueMetrics: WorkQueueMetrics | undefined;
  /** Reads the files of incoming messages; absent when attachments are off. */
  readonly attachments: AttachmentReader | undefined;
  /** Mounted under the HTTP server once the engine started; present exactly when `http:` is. */
  readonly operatorConsole: OperatorConsole | undefined;
  readonly logger: Logger;
}

export function appLifecycle(config: SwitchboardConfig, parts: BuiltParts): AppLifecycle {
  const { resources, engine, team, adapters, tracking, memory, tasks, humans, schedules, retryLater } = parts;
  const { access, observability, metrics, operatorConsole } = parts;
  const { retention, scaleOut, blobs } = resources;
  const workQueue = scaleOut?.queue;
  // What the running process was configured with; a reload compares the new file against it.
  let current = config;
  let http: HttpServer | undefined;
  let mounted: MountedConsole | undefined;
  return {
    async start() {
      await engine.start();
      // One process sweeps (requests, idle memory sessions) on its own timers; a cluster runs each
      // sweep once per cluster, as BullMQ rounds its workers take.
      tracking.bind(engine, { sweep: !scaleOut });
      tasks.bind(engine);
      humans.bind(engine);
      if (!scaleOut) humans.start();
      if (scaleOut) tasks.useScheduler(scaleOut.taskSteps);
      else tasks.startDriving();
      schedules.bind(engine);
      retryLater.bind(engine);
      await schedules.syncDeclared();
      // One process fires schedules from its due index; a cluster fires them in one worker's round.
      if (!scaleOut) {
        schedules.startDriving();
        retryLater.startDriving();
        memory.start();
        retention?.start();
      }
      await scaleOut?.startWorking(
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
        parts.queueMetrics,
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
            ...(config.memory.learnings.enabled ? { learnings: parts.learnings } : {}),
            ...(parts.attachments && blobs
              ? {
                  files: {
                    reader: parts.attachments,
                    blobs,
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
          logger: componentLogger(parts.logger, "http"),
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
        const stopping = scaleOut?.stopWorking();
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
        await resources.close();
      }
    },
  };
}
