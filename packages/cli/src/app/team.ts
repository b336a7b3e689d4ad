/**
 * The agent team as the configuration describes it, with the hooks of memory (context, search),
 * the tool catalog and request tracking; and memory's model.
 */

import type { StructuredToolInterface } from "@langchain/core/tools";
import {
  type Logger,
  type Memory,
  type Observability,
  type RequestTracking,
  type Schedules,
  type Store,
  type Tasks,
  Team,
} from "@switchboard/core";
import {
  type BlobStore,
  CREATE_FILE,
  createFileTool,
  GivenUpDeliveries,
  type HumanHandoffs,
  handToHumanTool,
  type Learnings,
  type ModelCallPolicy,
  readBlob,
  type Situation,
  SUPERVISOR,
} from "@switchboard/core/host";
import type { ActiveAgentStore } from "@switchboard/core/records";
import type { SwitchboardConfig } from "../config/schema.ts";
import type { OpenedCheckpointer } from "./checkpointer.ts";
import type { ModelCatalog } from "./model-catalog.ts";
import type { OpenedTools } from "./tools.ts";

export interface TeamDeps {
  readonly store: Store;
  readonly models: ModelCatalog;
  readonly logger: Logger;
  readonly checkpointer: OpenedCheckpointer;
  readonly tools: OpenedTools;
  readonly memory: Memory;
  readonly tracking: RequestTracking;
  readonly observability: Observability;
  readonly modelCalls: ModelCallPolicy;
  /** Where files are kept; absent when attachments are off. */
  readonly blobs: BlobStore | undefined;
  readonly tasks: Tasks;
  readonly schedules: Schedules;
  /** The date, time and place every agent's prompt ends with. */
  readonly situation: Situation;
  readonly humans: HumanHandoffs;
  readonly learnings: Learnings;
  /** The supervisor's `catch_up` (absent when memory is off). */
  readonly catchUp: StructuredToolInterface | undefined;
  readonly activeAgents: ActiveAgentStore;
  /** Whether agents get `hand_to_human` (`team.humans` is configured). */
  readonly humansTool: boolean;
}

/** Progress texts of the built-in tools. */
const BUILT_IN_TOOL_STATUS: Readonly<Record<string, string>> = {
  find_tools: "is looking for a tool that fits…",
  start_task: "is starting a background task…",
  schedule: "is setting up a schedule…",
  hand_to_human: "is asking a person to take over…",
  search_memory: "is searching earlier conversations…",
  create_file: "is writing a file…",
  consult: "is asking a colleague…",
  remember: "is making a note…",
  forget_learning: "is deleting a note…",
  catch_up: "is reading up on what happened…",
};

/** The agent team, with the hooks of memory (context, search), the tool catalog and request tracking. */
export function createTeam(config: SwitchboardConfig, deps: TeamDeps): Team {
  const { store, models, logger, checkpointer, tools, memory, tracking, observability, modelCalls, tasks } =
    deps;
  const { schedules, situation } = deps;
  const { blobs } = deps;
  const handToHuman = deps.humansTool ? [handToHumanTool(deps.humans)] : [];
  const learningTools = deps.learnings.tools();
  const catchUp = deps.catchUp ? [deps.catchUp] : [];
  const textOnly = new Set(config.attachments.textOnlyModels);
  const { catalog } = tools;
  const givenUp = new GivenUpDeliveries(store);
  return new Team({
    config: config.team,
    routing: config.routing,
    limits: config.limits,
    checkpointer: checkpointer.saver,
    store,
    modelFor: (model) => models.modelFor(model),
    describeModel: (model) => models.describe(model),
    tools: {
      ...tools.registry,
      ...memory.tools,
      ...(blobs ? { [CREATE_FILE]: createFileTool(blobs, { maxBytes: config.attachments.maxBytes }) } : {}),
    },
    builtInTools: (agent) => [
      ...tasks.toolsFor(agent),
      ...schedules.toolsFor(agent),
      ...handToHuman,
      ...learningTools,
      ...(agent === SUPERVISOR ? catchUp : []),
    ],
    activeAgents: deps.activeAgents,
    contextFor: memory.contextFor,
    beforeRun: memory.beforeRun,
    situationFor: (key, userId, now) => situation.lineFor(key, userId, now),
    learningsFor: (key, userId) => deps.learnings.promptFor(key, userId),
    // /new and /reset: memory archives the session; /reset also drops the conversation's learnings.
    freshStart: async (key, userId, kind) => {
      const said = await memory.freshStart(key, kind);
      const cleared = kind === "reset" ? await deps.learnings.clearConversation(key, userId) : 0;
      if (!deps.learnings.config.enabled) return said;
      const kept =
        cleared > 0
          ? `This conversation's ${cleared} learning${cleared === 1 ? " is" : "s are"} deleted; yours and this place's are kept.`
          : "Learnings are kept.";
      return [...said, kept];
    },
    attachedTools: (key, agent) => catalog.attachedTools(key, agent),
    needsApproval: (name) => catalog.needsApproval(name),
    // Built-in tools say what they do; configured ones may give a `status` text.
    toolStatus: (name) => catalog.statusOf(name) ?? BUILT_IN_TOOL_STATUS[name],
    statusLines: async (key, viewer) => [
      ...(await tracking.statusLines(key)),
      ...(await tasks.statusLines(key)),
      ...(await schedules.statusLines(key)),
      ...(await givenUp.statusLines(key)),
      ...tools.statusLinesFor(viewer),
    ],
    ...(observability.teamSteps ? { stepsFor: observability.teamSteps } : {}),
    modelCalls,
    ...(blobs
      ? {
          images: {
            acceptsImages: (model: string | undefined) => !isTextOnly(model, models, textOnly),
            load: async (blob) => (await readBlob(blobs, blob))?.toString("base64"),
          },
        }
      : {}),
    logger,
  });
}

/** A model named in `attachments.textOnlyModels`, as the agent writes it or as `provider:model`. */
function isTextOnly(model: string | undefined, models: ModelCatalog, textOnly: ReadonlySet<string>): boolean {
  if (textOnly.size === 0) return false;
  const spec = models.specFor(model);
  const named = spec.provider === "offline" ? "offline" : `${spec.provider}:${spec.model}`;
  return textOnly.has(named) || (model !== undefined && textOnly.has(model));
}

/** Memory's model: its own (`memory.model`), else the main one; none on the offline model (extractive memory). */
export function memoryModel(config: SwitchboardConfig, models: ModelCatalog) {
  if (config.memory.model) return { model: models.modelFor(config.memory.model) };
  return models.defaultSpec.provider === "offline" ? {} : { model: models.modelFor(undefined) };
}
