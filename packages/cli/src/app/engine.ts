/**
 * The engine as the configuration describes it: the adapters it serves, who may talk to it, the
 * team that answers, the chain of continuations (queued follow-ups of every feature), the chat
 * commands, file reading, and its settings.
 */
import {
  Engine,
  type Logger,
  type Memory,
  type Observability,
  type RequestTracking,
  type Responder,
  type RetryLater,
  type Schedules,
  type Store,
  type Tasks,
  type Team,
} from "@switchboard/core";
import type { Adapter } from "@switchboard/core/adapter";
import { DEFAULT_ENGINE_SETTINGS } from "@switchboard/core/config";
import {
  type AttachmentReader,
  type BlobStore,
  type CatchUpSources,
  type ContinuationHandler,
  catchUpCommands,
  type HumanHandoffs,
  humanCommands,
  type Learnings,
  learningCommands,
  type SwitchboardMetrics,
  teamIdentities,
  timezoneCommand,
  type UserTimeZones,
} from "@switchboard/core/host";
import type { SwitchboardConfig } from "../config/schema.ts";
import type { ScaleOut } from "../scale-out/index.ts";
import type { ConfiguredAccess } from "./access.ts";
import type { ModelCatalog } from "./model-catalog.ts";

export interface EngineDeps {
  readonly store: Store;
  readonly adapters: readonly Adapter[];
  readonly access: ConfiguredAccess;
  /** The team as a turn runs it: tracked as a request and observed. */
  readonly responder: Responder & ContinuationHandler;
  readonly team: Team;
  readonly memory: Memory;
  readonly learnings: Learnings;
  readonly catchUp: CatchUpSources;
  readonly humans: HumanHandoffs;
  readonly tasks: Tasks;
  readonly schedules: Schedules;
  readonly zones: UserTimeZones;
  readonly retryLater: RetryLater;
  readonly tracking: RequestTracking;
  readonly observability: Observability;
  readonly metrics: SwitchboardMetrics | undefined;
  /** A cluster role's queue: the engine hands its queued work to it instead of draining it here. */
  readonly scaleOut: ScaleOut | undefined;
  readonly models: ModelCatalog;
  /** Reads the files of incoming messages; absent when attachments are off. */
  readonly attachments: AttachmentReader | undefined;
  readonly blobs: BlobStore | undefined;
  readonly logger: Logger;
}

export function createConfiguredEngine(config: SwitchboardConfig, deps: EngineDeps): Engine {
  const { responder, team, memory, humans, tasks, schedules, retryLater, tracking, observability } = deps;
  const { metrics, scaleOut, attachments, blobs } = deps;
  return new Engine({
    store: deps.store,
    adapters: deps.adapters,
    access: deps.access.gate,
    responder,
    continuations: retryLater.continuations(
      humans.continuations(tasks.continuations(schedules.continuations(responder))),
    ),
    laterRetries: retryLater.engine,
    commands: observability.recordCommands([
      ...team.commands,
      ...tasks.commands,
      ...schedules.commands,
      timezoneCommand(deps.zones),
      ...humanCommands(humans),
      ...deps.access.commands,
      // `/forget <id>` deletes a learning; anything else is memory's `/forget` (when memory is on).
      ...memory.commands.filter((command) => command.name !== "forget"),
      ...learningCommands(
        deps.learnings,
        memory.commands.find((command) => command.name === "forget"),
      ),
      ...(config.memory.enabled ? catchUpCommands(deps.catchUp) : []),
      ...tracking.commands(),
      ...observability.commands,
    ]),
    observers: [memory.observer, ...observability.observers],
    approvals: tracking.approvals,
    deliveryObserver: observability.deliveryObserver,
    ...(metrics ? { onAccept: (outcome, message) => metrics.accepted(outcome, message) } : {}),
    ...(scaleOut ? { scheduler: scaleOut.queue } : {}),
    modelEndpoints: () => deps.models.endpoints.states(),
    identities: teamIdentities(config.team),
    ...(attachments && blobs
      ? {
          readAttachments: async (messages, { key, signal }) =>
            attachments.read(messages, { key, signal, imagesAccepted: await team.imagesAccepted(key) }),
          openFile: (blob) => blobs.open(blob),
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
    logger: deps.logger,
  });
}
