/**
 * The shape of switchboard.yaml, one section per key. Every section has defaults, so an absent
 * file, an empty file and a file with only `store:` are all valid; unknown keys are errors.
 */
import {
  ACCEPTED_CHECKPOINTER_URLS,
  ACCEPTED_STORE_URLS,
  attachmentsConfigSchema,
  DEFAULT_ENGINE_SETTINGS,
  httpConfigSchema,
  httpToolConfigSchema,
  limitsConfigSchema,
  ModelConfigError,
  mcpConfigSchema,
  memoryConfigSchema,
  parseModelSpec,
  parseModelString,
  requestsConfigSchema,
  routingConfigSchema,
  stepsConfigSchema,
  tasksConfigSchema,
  teamConfigSchema,
  usageConfigSchema,
} from "@switchboard/core";
import { z } from "zod";
import { describeValue } from "./format-issues.ts";
import { PLATFORM_SECTION_SCHEMAS } from "./platform-sections.ts";

export const DEFAULT_STORE_URL = "sqlite://./data/switchboard.db";
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;

function urlWithScheme(schemes: RegExp, accepted: string) {
  return z
    .string({ error: (issue) => `expected a URL (${accepted}), got ${describeValue(issue.input)}` })
    .trim()
    .refine((url) => schemes.test(url), {
      error: (issue) => `expected ${accepted}, got ${describeValue(issue.input)}`,
    });
}

/** `offline`, `openai:gpt-4o-mini`, … or the object form; see parseModelSpec in core. */
const modelSection = z.unknown().transform((value, context) => {
  try {
    return parseModelSpec(value);
  } catch (error) {
    if (!(error instanceof ModelConfigError)) throw error;
    context.addIssue({ code: "custom", message: error.message, input: value });
    return z.NEVER;
  }
});

const engineSection = z.strictObject({
  /** Text starting with one of these is a command: `/reset`, `!reset` (Matrix clients eat `/`). */
  commandPrefixes: z
    .array(z.string().min(1).max(3))
    .min(1)
    .default([...DEFAULT_ENGINE_SETTINGS.commandPrefixes]),
  midRunPolicy: z.enum(["queue", "collect", "interrupt"]).default(DEFAULT_ENGINE_SETTINGS.midRunPolicy),
  lockTtlSeconds: z
    .number()
    .int()
    .min(1)
    .max(3_600)
    .default(DEFAULT_ENGINE_SETTINGS.lockTtlMs / 1000),
  /** A turn still running after this long shows the working indicator; quicker answers show none. */
  typingDelayMs: z.number().int().min(0).max(60_000).default(DEFAULT_ENGINE_SETTINGS.typingDelayMs),
  /** Turns running at once in this process; more conversations wait, queued (acks stay quick). */
  maxConcurrentTurns: z.number().int().min(1).max(1_000).default(DEFAULT_ENGINE_SETTINGS.maxConcurrentTurns),
});

/** Which part of the work this process does; see the README's "Scaling out". */
export const ROLES = ["all", "ingress", "worker"] as const;
export type Role = (typeof ROLES)[number];

const scaleOutSection = z.strictObject({
  /** Conversations one worker drains at once (each runs one turn at a time). */
  concurrency: z.number().int().min(1).max(1_000).default(DEFAULT_ENGINE_SETTINGS.maxConcurrentTurns),
  /**
   * A drain job whose worker stopped renewing it for this long (it died) is given to another
   * worker; the conversation's own lock (engine.lockTtlSeconds) must expire too before it runs.
   */
  jobLockSeconds: z.number().int().min(1).max(600).default(30),
  /** How often one worker of the cluster looks for queued work nobody announced (the recovery round). */
  sweepSeconds: z.number().int().min(1).max(3_600).default(5),
  /**
   * The Matrix sync and the Discord gateway run in one ingress at a time (the leader); when it dies,
   * a standby ingress takes over within this long.
   */
  leaderLeaseSeconds: z.number().int().min(1).max(600).default(10),
});

/** Every top-level key. A feature adds its section here (one line) and reads it in app/build-app.ts. */
export const CONFIG_SECTIONS = {
  model: modelSection.prefault("offline"),
  store: urlWithScheme(/^(sqlite|rediss?|memory):/i, ACCEPTED_STORE_URLS).default(DEFAULT_STORE_URL),
  /** Defaults to the store URL. */
  checkpoints: urlWithScheme(
    /^(sqlite|rediss?|postgres(ql)?|memory):/i,
    ACCEPTED_CHECKPOINTER_URLS,
  ).optional(),
  logLevel: z.enum(LOG_LEVELS).default("info"),
  /** Levels per component (`engine`, `team`, `memory`, `runs`, `http`, `store`, platform names…). */
  logLevels: z.record(z.string().min(1), z.enum(LOG_LEVELS)).default({}),
  /** `auto`: pretty on a terminal, JSON lines otherwise. */
  logFormat: z.enum(["auto", "json", "pretty"]).default("auto"),
  /** `all`: one process does everything. `ingress` / `worker`: a cluster on a shared Redis (BullMQ). */
  role: z.enum(ROLES).default("all"),
  /** BullMQ settings of the ingress and worker roles (unused by `all`). */
  scaleOut: scaleOutSection.prefault({}),
  engine: engineSection.prefault({}),
  team: teamConfigSchema.prefault({}),
  routing: routingConfigSchema.prefault({}),
  limits: limitsConfigSchema.prefault({}),
  memory: memoryConfigSchema.prefault({}),
  /** Files people send (images, documents, voice notes) and files the team sends back. */
  attachments: attachmentsConfigSchema.prefault({}),
  requests: requestsConfigSchema.prefault({}),
  /** Background tasks agents start (`start_task`), steered with /tasks and /task. */
  tasks: tasksConfigSchema.prefault({}),
  /** The run-steps log: what every run did, kept `retentionDays`. */
  steps: stepsConfigSchema.prefault({}),
  /** Token and cost roll-ups: prices, daily limits, who may see the whole workspace's usage. */
  usage: usageConfigSchema.prefault({}),
  /** Present: the HTTP server (GET /health; POST /webhooks/runs when a webhook secret is set). */
  http: httpConfigSchema.optional(),
  /** Tools operators declare: HTTP endpoints agents may call (by name in `tools:`, or via find_tools). */
  tools: z.array(httpToolConfigSchema).default([]),
  /** MCP servers whose tools join the catalog as `<server>__<tool>`. */
  mcp: mcpConfigSchema.prefault({}),
  matrix: PLATFORM_SECTION_SCHEMAS.matrix.optional(),
  discord: PLATFORM_SECTION_SCHEMAS.discord.optional(),
  slack: PLATFORM_SECTION_SCHEMAS.slack.optional(),
};

/** Sections whose presence switches something on; `discord:` with nothing under it still enables Discord. */
export const ENABLING_SECTIONS: ReadonlySet<string> = new Set(["matrix", "discord", "slack"]);

export const configFileSchema = z
  .strictObject(CONFIG_SECTIONS)
  .superRefine((config, context) => {
    if (config.role !== "all") {
      // Ingress and workers share every queue, lock and record: only Redis is reachable by all.
      if (!/^rediss?:/i.test(config.store))
        context.addIssue({
          code: "custom",
          path: ["store"],
          message: `role ${config.role} needs a Redis store shared by the cluster (redis://…), got ${describeValue(config.store)}`,
          input: config.store,
        });
      // Unset, checkpoints follow the store: its problem is already reported.
      const checkpoints = config.checkpoints;
      if (checkpoints !== undefined && !/^(rediss?|postgres(ql)?):/i.test(checkpoints))
        context.addIssue({
          code: "custom",
          path: ["checkpoints"],
          message: `role ${config.role} needs checkpoints every worker reaches (redis://… or postgres://…), got ${describeValue(checkpoints)}`,
          input: checkpoints,
        });
    }
    // An agent's own model is a string; check it here so its error names its place in the file.
    const agents = [
      { path: ["team", "supervisor", "model"], model: config.team.supervisor.model },
      { path: ["memory", "model"], model: config.memory.model },
      { path: ["memory", "summaryModel"], model: config.memory.summaryModel },
      ...config.team.specialists.map((s, index) => ({
        path: ["team", "specialists", index, "model"],
        model: s.model,
      })),
    ];
    for (const { path, model } of agents) {
      if (model === undefined) continue;
      try {
        parseModelString(model);
      } catch (error) {
        if (!(error instanceof ModelConfigError)) throw error;
        context.addIssue({ code: "custom", path, message: error.message, input: model });
      }
    }
  })
  .transform((config) => ({ ...config, checkpoints: config.checkpoints ?? config.store }));

export type SwitchboardConfig = z.output<typeof configFileSchema>;
