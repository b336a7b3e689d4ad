import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Command } from "../commands/command.ts";
import type { ContinuationHandler, ContinuationWork } from "../engine/responder.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import { syncDeclaredSchedules } from "./declared-schedules.ts";
import type { DigestSources } from "./digest-material.ts";
import { ScheduleControls, scheduleCommands } from "./schedule-commands.ts";
import { ScheduleDriver } from "./schedule-driver.ts";
import {
  type FireQueue,
  SCHEDULE_FIRED,
  SCHEDULE_SKIPPED,
  ScheduleFirer,
  type ScheduleObserver,
} from "./schedule-firer.ts";
import { type PlaceForPosts, ScheduleMaker } from "./schedule-maker.ts";
import type { ScheduleRecord } from "./schedule-record.ts";
import { type InitiatedRunner, ScheduleRuns } from "./schedule-runs.ts";
import { ScheduleStore } from "./schedule-store.ts";
import { scheduleLine } from "./schedule-texts.ts";
import type { DeclaredSchedule, SchedulesConfig } from "./schedules-config.ts";

export interface CreateSchedulesOptions {
  readonly store: Store;
  readonly config: SchedulesConfig;
  /** The zone of declared schedules that name none (`defaults.timeZone`). */
  readonly defaultTimeZone: string;
  /** Platform user ids who may change anyone's schedule. */
  readonly admins: readonly string[];
  /** A person's time zone: their setting, their platform profile, the default. */
  readonly zoneOf: (platform: string, userId: string) => Promise<string>;
  /** Where posts the bot makes on its own go for a conversation (the platform adapter decides). */
  readonly placeFor: PlaceForPosts;
  /** The message that opened a request (a schedule made in its run belongs to that message's thread). */
  readonly originOf: (requestId: string) => Promise<{ messageId?: string } | undefined>;
  /** Runs the team for a fire (the tracked team), once it exists. */
  readonly runner: () => InitiatedRunner;
  /** Where digests read what was discussed. */
  readonly digests: DigestSources;
  /** The sentence that refuses a run when its owner or thread is over a usage cap (usage limits). */
  readonly refusal?: (userId: string, key: string) => Promise<string | undefined>;
  readonly observer?: ScheduleObserver;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Schedules wired in one place: `toolsFor` to the team, `commands` and `continuations` to the engine, then `bind(engine)`. */
export interface Schedules {
  readonly config: SchedulesConfig;
  readonly store: ScheduleStore;
  readonly controls: ScheduleControls;
  /** `schedule` for the agents config allows (none when schedules are off). */
  toolsFor(agent: string): StructuredToolInterface[];
  readonly commands: readonly Command[];
  /** The engine's continuation handler: fires here, everything else to `others`. */
  continuations(others: ContinuationHandler): ContinuationHandler;
  /** /status lines: the thread's active schedules. */
  statusLines(key: string): Promise<string[]>;
  /** Connects to the engine that queues fires into home threads. */
  bind(queue: FireQueue): void;
  /**
   * Brings the declared schedules (switchboard.yaml) into the store; every process, at start, and
   * again with the new list when the configuration is reloaded.
   */
  syncDeclared(declared?: readonly DeclaredSchedule[]): Promise<void>;
  /** Role `all`: fires due schedules from this process (the due index, polled, no timer a restart forgets). */
  startDriving(): void;
  /** A cluster: one round of firing (and retention), run once per cluster every `pollMs`. */
  fireRound(): Promise<{ fired: number; skipped: number; deleted: number }>;
  readonly pollMs: number;
  /** Resolves when no firing round runs here (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const RETENTION_EVERY_MS = 3_600_000;

export function createSchedules(options: CreateSchedulesOptions): Schedules {
  const { config, clock, logger } = options;
  const retentionMs = config.retentionDays * 24 * 3_600_000;
  const store = new ScheduleStore(options.store, { retentionMs });
  let queue: FireQueue | undefined;
  let driver: ScheduleDriver | undefined;
  let retentionTimer: NodeJS.Timeout | undefined;
  let lastRetention = 0;
  const pollMs = Math.round(config.pollSeconds * 1000);
  const firer = new ScheduleFirer({
    store,
    queue: () => {
      if (!queue) throw new Error("schedules.bind(engine) was not called");
      return queue;
    },
    catchUpMs: config.catchUpMinutes * 60_000,
    ...(options.observer ? { observer: options.observer } : {}),
    clock,
    logger,
  });
  // A schedule due before the next poll: the driver wakes at its time instead of up to a poll late.
  const announce = (_record: ScheduleRecord) => driver?.kick();
  const maker = new ScheduleMaker({
    store,
    config,
    originOf: options.originOf,
    zoneOf: options.zoneOf,
    placeFor: options.placeFor,
    clock,
    logger,
    made: announce,
  });
  const controls = new ScheduleControls({ store, admins: options.admins, clock, resumed: announce });
  const runs = new ScheduleRuns({
    store,
    runner: options.runner,
    digests: options.digests,
    ...(options.refusal ? { refusal: options.refusal } : {}),
    catchUpMs: config.catchUpMinutes * 60_000,
    ...(options.observer ? { observer: options.observer } : {}),
    clock,
    logger,
  });
  const tool = maker.tool();
  const enabledFor = (agent: string) =>
    config.enabled && (config.agents.length === 0 || config.agents.includes(agent));
  const retention = async () => {
    lastRetention = clock.now();
    const deleted = await store.deleteEndedBefore(clock.now() - retentionMs);
    if (deleted.length > 0)
      logger.info("ended schedules deleted after their retention", { count: deleted.length });
    return deleted.length;
  };
  return {
    config,
    store,
    controls,
    toolsFor: (agent) => (enabledFor(agent) ? [tool] : []),
    commands: scheduleCommands({ store, controls }),
    continuations(others) {
      return {
        continue: (work: ContinuationWork) =>
          work.continuation.type === SCHEDULE_FIRED || work.continuation.type === SCHEDULE_SKIPPED
            ? runs.continue(work)
            : others.continue(work),
      };
    },
    async statusLines(key) {
      const active = (await store.inHome(key)).filter(
        (record) => record.status === "active" || record.status === "paused",
      );
      if (active.length === 0) return [];
      return ["Schedules:", ...active.map((record) => `- ${scheduleLine(record)}`)];
    },
    bind(target) {
      queue = target;
    },
    syncDeclared: (declared = config.declared) =>
      syncDeclaredSchedules({
        store,
        declared,
        defaultTimeZone: options.defaultTimeZone,
        placeFor: options.placeFor,
        clock,
        logger,
        made: announce,
      }),
    startDriving() {
      driver = new ScheduleDriver({ store, firer, pollMs, clock, logger });
      driver.start();
      const sweep = () =>
        void retention().catch((error: unknown) => logger.warn("schedule retention failed", { error }));
      retentionTimer = setInterval(sweep, RETENTION_EVERY_MS);
      retentionTimer.unref?.();
      sweep();
    },
    async fireRound() {
      const fired = await firer.fireDue();
      const deleted = clock.now() - lastRetention >= RETENTION_EVERY_MS ? await retention() : 0;
      return { ...fired, deleted };
    },
    pollMs,
    async idle() {
      await driver?.settled();
    },
    async stop() {
      clearInterval(retentionTimer);
      retentionTimer = undefined;
      await driver?.stop();
    },
  };
}
