/**
 * Background tasks as the configuration describes them: the team's agents and models, the tool
 * registry, request tracking (a task is a run of the request that started it), the run-steps log
 * and usage (tokens, cost, caps), metrics.
 */
import {
  createTasks,
  type Logger,
  type Memory,
  type Observability,
  type RequestTracking,
  type Store,
  systemClock,
  type Tasks,
  type Team,
} from "@switchboard/core";
import {
  type ModelCallPolicy,
  replyTargetOf,
  SUPERVISOR,
  TaskMetrics,
  type TaskObserver,
} from "@switchboard/core/host";
import type { SwitchboardConfig } from "../config/schema.ts";
import type { OpenedCheckpointer } from "./checkpointer.ts";
import type { ModelCatalog } from "./model-catalog.ts";
import type { OpenedTools } from "./tools.ts";

export interface TasksDeps {
  readonly store: Store;
  readonly models: ModelCatalog;
  readonly checkpointer: OpenedCheckpointer;
  readonly tools: OpenedTools;
  readonly memory: Memory;
  readonly tracking: RequestTracking;
  readonly observability: Observability;
  readonly modelCalls: ModelCallPolicy;
  /** The team, once built (it takes `toolsFor`, so it comes after). */
  readonly team: () => Team;
  readonly logger: Logger;
  /** Hears task steps and endings besides metrics (the operator console). */
  readonly observer?: TaskObserver;
}

export function createConfiguredTasks(config: SwitchboardConfig, deps: TasksDeps): Tasks {
  const { models, tools, memory, tracking, observability } = deps;
  const agents = [
    { name: SUPERVISOR, model: config.team.supervisor.model, tools: config.team.supervisor.tools },
    ...config.team.specialists.map((s) => ({ name: s.name, model: s.model, tools: s.tools })),
  ];
  const modelNameOf = new Map(
    agents.map((agent) => {
      const spec = models.specFor(agent.model);
      return [agent.name, "model" in spec ? spec.model : spec.provider] as const;
    }),
  );
  const registry = { ...tools.registry, ...memory.tools };
  const metrics = observability.metrics;
  const longRun = observability.longRun;
  let tasks: Tasks | undefined;
  tasks = createTasks({
    store: deps.store,
    checkpointer: deps.checkpointer.saver,
    config: config.tasks,
    agents: agents.map((agent) => ({
      name: agent.name,
      model: models.modelFor(agent.model),
      tools: agent.tools,
    })),
    toolOf: (name) => registry[name],
    requests: {
      async originOf(requestId) {
        const request = await tracking.tracker.get(requestId);
        return request
          ? { messageId: replyTargetOf(request.origin) ?? "", authorId: request.origin.authorId }
          : undefined;
      },
      async addRun(requestId, run) {
        await tracking.tracker.ensureRun(requestId, { triggeredBy: "task", ...run });
      },
      async finishRun(record) {
        if (!record.requestId) return;
        const status =
          record.status === "completed"
            ? "completed"
            : record.status === "cancelled"
              ? "cancelled"
              : "failed";
        // A request past `requests.retentionDays`, or a run ended already (a start repeated after a
        // crash), is left as it is.
        await tracking.tracker.finishIfRunning(record.requestId, record.runId, status, record.lastError);
      },
    },
    appendToHistory: (key, message) => deps.team().appendToHistory(key, message),
    modelCalls: deps.modelCalls,
    ...(longRun
      ? {
          recording: (record) =>
            longRun({
              runId: record.runId,
              conversationKey: record.home.key,
              userId: record.requesterId,
              ...(record.requestId ? { requestId: record.requestId } : {}),
              trigger: "task",
            }),
        }
      : {}),
    costOf: (agent, tokens) => observability.prices.costOf(modelNameOf.get(agent) ?? "", tokens),
    refusal: (record) => observability.usageRefusal(record.requesterId, record.home.key),
    ...(metrics
      ? {
          observer: new TaskMetrics(
            metrics.registry,
            () => tasks?.store.countsByStatus() ?? Promise.reject(new Error("tasks not built")),
          ),
        }
      : {}),
    admins: config.requests.admins,
    leaseTtlMs: config.engine.lockTtlSeconds * 1000,
    clock: systemClock,
    logger: deps.logger,
  });
  return tasks;
}
