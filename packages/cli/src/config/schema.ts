/**
 * The shape of switchboard.yaml, one section per key. Every section has defaults, so an absent
 * file, an empty file and a file with only `store:` are all valid; unknown keys are errors.
 */
import {
  ACCEPTED_CHECKPOINTER_URLS,
  ACCEPTED_STORE_URLS,
  accessConfigSchema,
  attachmentsConfigSchema,
  DEFAULT_ENGINE_SETTINGS,
  httpConfigSchema,
  httpToolConfigSchema,
  identitiesConfigSchema,
  isTimeZone,
  limitsConfigSchema,
  ModelConfigError,
  mcpConfigSchema,
  memoryConfigSchema,
  modelEndpointsConfigSchema,
  parseModelSpec,
  parseModelString,
  requestsConfigSchema,
  routingConfigSchema,
  schedulesConfigSchema,
  stepsConfigSchema,
  tasksConfigSchema,
  teamConfigSchema,
  usageConfigSchema,
} from "@switchboard/core/config";
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
    .default([...DEFAULT_ENGINE_SETTINGS.commandPrefixes])
    .describe(
      "Text starting with one of these is a command (`/reset`, `!reset`; Matrix and Slack clients take a typed `/word` themselves).",
    ),
  midRunPolicy: z
    .enum(["queue", "collect", "interrupt"])
    .default(DEFAULT_ENGINE_SETTINGS.midRunPolicy)
    .describe(
      "A message arriving while the thread's answer is being worked on: `queue` answers it afterwards, in order; `collect` answers everything that arrived in one turn; `interrupt` stops the running answer and answers the new one (in a cluster it acts as `queue`).",
    ),
  lockTtlSeconds: z
    .number()
    .int()
    .min(1)
    .max(3_600)
    .default(DEFAULT_ENGINE_SETTINGS.lockTtlMs / 1000)
    .describe(
      "How long a thread stays locked after its process died mid-answer; a heartbeat renews the lock while the process lives, and a clean stop releases it.",
    ),
  typingDelayMs: z
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(DEFAULT_ENGINE_SETTINGS.typingDelayMs)
    .describe(
      "A turn still running after this long shows the working indicator (Slack status or reaction, Discord and Matrix typing); a quicker answer is one post and nothing else.",
    ),
  maxConcurrentTurns: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(DEFAULT_ENGINE_SETTINGS.maxConcurrentTurns)
    .describe(
      "Turns in progress at once in this process, those waiting on a model or a tool included; more conversations wait, queued. A ceiling for memory, not a speed limit: each turn in progress holds its conversation's history, prompt and partial answer (tens to hundreds of KB), so the default 2,000 keeps them within a few hundred MB. How many turns use the CPU at once follows the event loop (eventLoopDelayTargetMs).",
    ),
  eventLoopDelayTargetMs: z
    .number()
    .int()
    .min(5)
    .max(1_000)
    .default(DEFAULT_ENGINE_SETTINGS.cpuSlots.targetDelayMs)
    .describe(
      "Turns compute (store calls, graph steps) only in CPU slots, and a turn waiting on a model or a tool holds none. The slots grow while the event loop's delay (p99 over 250 ms) stays under half this and shrink by a quarter when it goes over: that delay is what a platform's acknowledgement waits for, so intake and acks stay first under any load.",
    ),
});

/** Which part of the work this process does; see docs/how-to/scale-out.md. */
export const ROLES = ["all", "ingress", "worker"] as const;
export type Role = (typeof ROLES)[number];

const scaleOutSection = z.strictObject({
  concurrency: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(DEFAULT_ENGINE_SETTINGS.maxConcurrentTurns)
    .describe(
      "Conversations one worker drains at once (each runs one turn at a time). Like engine.maxConcurrentTurns, a ceiling for memory: turns waiting on a model hold no CPU slot, so it is sized in the thousands.",
    ),
  jobLockSeconds: z
    .number()
    .int()
    .min(1)
    .max(600)
    .default(30)
    .describe(
      "A drain job whose worker died is given to another worker within this long (BullMQ's job lock is half of it, its stalled-job check runs every quarter); the conversation's own lock (engine.lockTtlSeconds) must expire too before it runs.",
    ),
  sweepSeconds: z
    .number()
    .int()
    .min(1)
    .max(3_600)
    .default(5)
    .describe(
      "How often one worker of the cluster looks for queued work nobody announced (the recovery round).",
    ),
  leaderLeaseSeconds: z
    .number()
    .int()
    .min(1)
    .max(600)
    .default(10)
    .describe(
      "The Matrix sync and the Discord gateway run in one ingress at a time (the leader); when it dies, a standby ingress takes over within this long.",
    ),
});

const defaultsSection = z.strictObject({
  timeZone: z
    .string()
    .trim()
    .default("UTC")
    .refine((zone) => isTimeZone(zone), {
      error: (issue) =>
        `expected an IANA time zone such as Europe/Berlin or America/New_York, got ${describeValue(issue.input)}`,
    })
    .describe(
      "The time zone of people whose platform profile names none and who set none with `/timezone`; also of declared schedules that name none.",
    ),
});

/** Every top-level key. A feature adds its section here (one line) and reads it where app/ wires that feature. */
export const CONFIG_SECTIONS = {
  model: modelSection
    .prefault("offline")
    .describe(
      "The team's model: `offline` (built in, no key or network), `openai:<model>`, `anthropic:<model>`, `ollama:<model>`, or the object form below (`provider: openai-compatible` needs `baseUrl`). Agents' own `model:` strings take the same string forms.",
    ),
  store: urlWithScheme(/^(sqlite|rediss?|memory):/i, ACCEPTED_STORE_URLS)
    .default(DEFAULT_STORE_URL)
    .describe(
      "Where conversations, active agents, dedupe records, locks, queues, requests and memory live: `sqlite://<path>` (embedded), `redis://[user:password@]host[:port][/db][?prefix=name:]` (`rediss://` for TLS), `memory://` (gone on exit).",
    ),
  checkpoints: urlWithScheme(/^(sqlite|rediss?|postgres(ql)?|memory):/i, ACCEPTED_CHECKPOINTER_URLS)
    .optional()
    .describe(
      "Where the agents' conversation state (LangGraph checkpoints) lives: a SQLite, Redis or `postgres://` URL. Defaults to the `store` URL.",
    ),
  logLevel: z.enum(LOG_LEVELS).default("info").describe("Least severity of the log lines written to stderr."),
  logLevels: z
    .record(z.string().min(1), z.enum(LOG_LEVELS))
    .default({})
    .describe(
      "A level per component, over `logLevel`: `engine`, `team`, `memory`, `runs`, `steps`, `http`, `store`, platform names (e.g. `{ memory: debug }`).",
    ),
  logFormat: z
    .enum(["auto", "json", "pretty"])
    .default("auto")
    .describe("`auto`: pretty on a terminal, JSON lines otherwise."),
  role: z
    .enum(ROLES)
    .default("all")
    .describe(
      "`all`: one process does everything. `ingress` / `worker`: a cluster on a shared Redis (BullMQ).",
    ),
  scaleOut: scaleOutSection
    .prefault({})
    .describe("BullMQ settings of the ingress and worker roles (unused by `all`)."),
  engine: engineSection.prefault({}).describe("How each thread's turns are taken, locked and run."),
  modelEndpoints: modelEndpointsConfigSchema
    .prefault({})
    .describe(
      "Concurrency per model endpoint: adaptive (grows while calls succeed, halves on 429/503/timeouts), with optional caps.",
    ),
  team: teamConfigSchema
    .prefault({})
    .describe("The agents: a supervisor that routes, and the specialists it hands threads to."),
  routing: routingConfigSchema.prefault({}).describe("Who answers a thread's next message."),
  limits: limitsConfigSchema.prefault({}).describe("Bounds on one turn, so a looping agent stops."),
  memory: memoryConfigSchema
    .prefault({})
    .describe("The memory agent: entries, context documents and archived sessions per conversation."),
  identities: identitiesConfigSchema,
  attachments: attachmentsConfigSchema
    .prefault({})
    .describe("Files people send (images, documents, voice notes) and files the team sends back."),
  requests: requestsConfigSchema
    .prefault({})
    .describe(
      "Request records: one per user message, across every run it causes; notices, time-outs, approvals.",
    ),
  access: accessConfigSchema
    .prefault({})
    .describe(
      "Who may talk to the bot, per platform: direct messages (open, allowlist, pairing, disabled) and channels (open, allowlist).",
    ),
  tasks: tasksConfigSchema
    .prefault({})
    .describe("Background tasks agents start (`start_task`), steered with /tasks and /task."),
  schedules: schedulesConfigSchema
    .prefault({})
    .describe(
      "Reminders and recurring runs: the `schedule` tool agents use, /schedules and /schedule, and the operator's declared schedules.",
    ),
  defaults: defaultsSection
    .prefault({})
    .describe("Fallbacks for what people have not said: their time zone."),
  steps: stepsConfigSchema
    .prefault({})
    .describe("The run-steps log: what every run did, kept `retentionDays`."),
  usage: usageConfigSchema
    .prefault({})
    .describe("Token and cost roll-ups: prices, daily limits, who may see the whole workspace's usage."),
  http: httpConfigSchema
    .optional()
    .describe("Present: the HTTP server (GET /health; POST /webhooks/runs when a webhook secret is set)."),
  tools: z
    .array(httpToolConfigSchema)
    .default([])
    .describe(
      "Tools operators declare: HTTP endpoints agents may call (by name in `tools:`, or via find_tools).",
    ),
  mcp: mcpConfigSchema
    .prefault({})
    .describe("MCP servers whose tools join the catalog as `<server>__<tool>`."),
  matrix: PLATFORM_SECTION_SCHEMAS.matrix
    .optional()
    .describe("Present (even empty, secrets from the environment): Switchboard answers in Matrix rooms."),
  discord: PLATFORM_SECTION_SCHEMAS.discord
    .optional()
    .describe(
      "Present (even empty, secrets from the environment): Switchboard answers in Discord servers and DMs.",
    ),
  slack: PLATFORM_SECTION_SCHEMAS.slack
    .optional()
    .describe(
      "Present (even empty, secrets from the environment): Switchboard answers in a Slack workspace.",
    ),
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
