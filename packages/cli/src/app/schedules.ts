/**
 * Schedules and the time agents see, as the configuration describes them: people's time zones
 * (their /timezone, their platform profile, `defaults.timeZone`), the date-and-place line at the
 * end of every agent prompt, and schedules — made by agents or declared by the operator — whose
 * fires are runs of the tracked team, recorded and delivered like turns.
 */
import {
  createSchedules,
  type Logger,
  type Memory,
  type Observability,
  type RequestTracking,
  type Schedules,
  type Store,
  systemClock,
} from "@switchboard/core";
import type { Adapter, ConversationRef } from "@switchboard/core/adapter";
import {
  type InitiatedRunner,
  replyTargetOf,
  ScheduleMetrics,
  type ScheduleObserver,
  Situation,
  UserTimeZones,
} from "@switchboard/core/host";
import type { SwitchboardConfig } from "../config/schema.ts";

/** The platform adapters by platform, known once they are built (after the team). */
export class AdapterDirectory {
  #adapters = new Map<string, Adapter>();

  set(adapters: readonly Adapter[]): void {
    this.#adapters = new Map(adapters.map((adapter) => [adapter.platform, adapter]));
  }

  get(platform: string): Adapter | undefined {
    return this.#adapters.get(platform);
  }

  placeFor(conversation: ConversationRef, startedBy: string | undefined) {
    const adapter = this.get(conversation.platform);
    return adapter?.placeForPosts?.(conversation, startedBy) ?? { post: conversation, channel: conversation };
  }
}

export interface TimeAndPlace {
  readonly zones: UserTimeZones;
  readonly situation: Situation;
}

export function createTimeAndPlace(
  config: SwitchboardConfig,
  deps: { store: Store; adapters: AdapterDirectory; logger: Logger },
): TimeAndPlace {
  const { adapters, logger } = deps;
  const zones = new UserTimeZones({
    store: deps.store,
    profileZone: async (platform, userId) => adapters.get(platform)?.userTimeZone?.(userId),
    defaultZone: config.defaults.timeZone,
    logger,
  });
  const situation = new Situation({
    zones,
    describePlace: async (conversation) => adapters.get(conversation.platform)?.describePlace?.(conversation),
    logger,
  });
  return { zones, situation };
}

export interface SchedulesDeps {
  readonly store: Store;
  readonly zones: UserTimeZones;
  readonly adapters: AdapterDirectory;
  readonly tracking: RequestTracking;
  readonly memory: Memory;
  readonly observability: Observability;
  /** The tracked team, once built (its `runInitiated` runs a fire). */
  readonly team: () => InitiatedRunner;
  /** Told whenever a schedule fired or a fire finished (the console refreshes its Schedules page). */
  readonly changed?: () => void;
  readonly logger: Logger;
}

export function createConfiguredSchedules(config: SwitchboardConfig, deps: SchedulesDeps): Schedules {
  const { tracking, memory, observability, adapters } = deps;
  const metrics = observability.metrics;
  let schedules: Schedules | undefined;
  schedules = createSchedules({
    store: deps.store,
    config: config.schedules,
    defaultTimeZone: config.defaults.timeZone,
    admins: config.requests.admins,
    zoneOf: (platform, userId) => deps.zones.zoneOf(platform, userId),
    placeFor: (conversation, startedBy) => adapters.placeFor(conversation, startedBy),
    async originOf(requestId) {
      const request = await tracking.tracker.get(requestId);
      const replyTo = request ? replyTargetOf(request.origin) : undefined;
      return replyTo === undefined ? {} : { messageId: replyTo };
    },
    runner: deps.team,
    refusal: (userId, key) => observability.usageRefusal(userId, key),
    digests: {
      ...(observability.steps ? { runs: observability.steps } : {}),
      ...(config.memory.enabled ? { archive: memory.archive, book: memory.book } : {}),
    },
    observer: observerOf(
      metrics
        ? new ScheduleMetrics(
            metrics.registry,
            () => schedules?.store.countsByStatus() ?? Promise.reject(new Error("schedules not built")),
          )
        : undefined,
      deps.changed,
    ),
    clock: systemClock,
    logger: deps.logger,
  });
  return schedules;
}

/** Metrics hear every fire; whoever watches (the console) hears that something changed. */
function observerOf(
  metrics: ScheduleObserver | undefined,
  changed: (() => void) | undefined,
): ScheduleObserver {
  return {
    fired(record, dueAt, lateMs) {
      metrics?.fired?.(record, dueAt, lateMs);
      changed?.();
    },
    skipped(record, count) {
      metrics?.skipped?.(record, count);
      changed?.();
    },
    finished(record, outcome) {
      metrics?.finished?.(record, outcome);
      changed?.();
    },
  };
}
