/**
 * The agent team and the work it starts beyond a turn: background tasks and schedules, with the
 * time and place agents see. Tasks and schedules run through the team, yet the team takes their
 * tools, so it is built last and they reach it through a getter that throws until it exists.
 * Returned: the team as a turn runs it (tracked as a request, observed).
 */
import type {
  Logger,
  Memory,
  Observability,
  RequestTracking,
  Responder,
  Schedules,
  Store,
  Tasks,
  Team,
} from "@switchboard/core";
import {
  type BlobStore,
  type CatchUpSources,
  type ContinuationHandler,
  catchUpTool,
  componentLogger,
  type HumanHandoffs,
  type InitiatedRunner,
  type Learnings,
  type ModelCallPolicy,
  type TaskObserver,
} from "@switchboard/core/host";
import type { ActiveAgentStore } from "@switchboard/core/records";
import type { SwitchboardConfig } from "../config/schema.ts";
import type { OpenedCheckpointer } from "./checkpointer.ts";
import type { ModelCatalog } from "./model-catalog.ts";
import {
  AdapterDirectory,
  createConfiguredSchedules,
  createTimeAndPlace,
  type TimeAndPlace,
} from "./schedules.ts";
import { createConfiguredTasks } from "./tasks.ts";
import { createTeam } from "./team.ts";
import type { OpenedTools } from "./tools.ts";

export interface TeamAndWorkDeps {
  readonly store: Store;
  readonly models: ModelCatalog;
  readonly checkpointer: OpenedCheckpointer;
  readonly tools: OpenedTools;
  readonly memory: Memory;
  readonly learnings: Learnings;
  readonly catchUp: CatchUpSources;
  readonly humans: HumanHandoffs;
  readonly activeAgents: ActiveAgentStore;
  readonly tracking: RequestTracking;
  readonly observability: Observability;
  readonly modelCalls: ModelCallPolicy;
  /** Where files are kept; absent when attachments are off. */
  readonly blobs: BlobStore | undefined;
  /** Hears task steps and endings besides metrics (the operator console). */
  readonly taskObserver?: TaskObserver | undefined;
  /** Told whenever a schedule fired or a fire finished (the operator console). */
  readonly schedulesChanged?: (() => void) | undefined;
  /** The process logger; each part logs under its own component. */
  readonly logger: Logger;
}

export interface TeamAndWork {
  readonly team: Team;
  /** The team as a turn runs it: tracked as a request, observed. */
  readonly responder: Responder & ContinuationHandler;
  readonly tasks: Tasks;
  readonly schedules: Schedules;
  readonly timeAndPlace: TimeAndPlace;
  /** The adapters by platform, for schedules and time zones; filled once the adapters are built. */
  readonly directory: AdapterDirectory;
}

export function createTeamAndWork(config: SwitchboardConfig, deps: TeamAndWorkDeps): TeamAndWork {
  const { store, models, checkpointer, tools, memory, tracking, observability, modelCalls, logger } = deps;
  // What the team and its background tasks both run on.
  const runsOn = { store, models, checkpointer, tools, memory, tracking, observability, modelCalls };
  let builtTeam: Team | undefined;
  const tasks = createConfiguredTasks(config, {
    ...runsOn,
    team: onceBuilt(() => builtTeam),
    logger: componentLogger(logger, "tasks"),
    ...(deps.taskObserver ? { observer: deps.taskObserver } : {}),
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
    team: onceBuilt(() => trackedTeam),
    ...(deps.schedulesChanged ? { changed: deps.schedulesChanged } : {}),
    logger: componentLogger(logger, "schedules"),
  });
  const team = createTeam(config, {
    ...runsOn,
    logger: componentLogger(logger, "team"),
    blobs: deps.blobs,
    tasks,
    schedules,
    situation: timeAndPlace.situation,
    humans: deps.humans,
    learnings: deps.learnings,
    catchUp: config.memory.enabled ? catchUpTool(deps.catchUp) : undefined,
    activeAgents: deps.activeAgents,
    humansTool: config.team.humans !== undefined,
  });
  builtTeam = team;
  memory.attach(team);
  const tracked = tracking.track(team);
  trackedTeam = tracked;
  const responder = observability.observe(tracked);
  return { team, responder, tasks, schedules, timeAndPlace, directory };
}

/** The team for a part built before it; asked for earlier, it is a wiring mistake. */
function onceBuilt<T>(built: () => T | undefined): () => T {
  return () => {
    const team = built();
    if (!team) throw new Error("the team is not built yet");
    return team;
  };
}
