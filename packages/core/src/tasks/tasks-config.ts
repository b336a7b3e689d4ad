import { z } from "zod";

export const tasksConfigSchema = z.strictObject({
  /** Agents may start background tasks with the `start_task` tool. */
  enabled: z.boolean().default(true).describe("agents may start background tasks (the start_task tool)"),
  /** Agents that get `start_task`; empty: every agent of the team. */
  agents: z
    .array(z.string())
    .default([])
    .describe("agents that get the start_task tool; empty means every agent of the team"),
  /** Unfinished tasks (queued, running, waiting, paused) one thread may have at once. */
  maxRunningPerConversation: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(3)
    .describe("unfinished tasks one thread may have at once; more are refused with the running list"),
  /** Task steps running at once in this process (one step: one model call and its tool calls). */
  maxConcurrent: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(8)
    .describe("task steps running at once in this process (a worker, in a cluster)"),
  /** Steps (model calls) one task may take; at the cap it stops and says so in its thread. */
  maxIterations: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(50)
    .describe("steps (model calls) one task may take"),
  /** Running time one task may take, pauses not counted. */
  wallTimeMinutes: z
    .number()
    .positive()
    .max(7 * 24 * 60)
    .default(60)
    .describe("running time one task may take, time spent paused not counted"),
  /**
   * Tools tasks may use at all (names from the tool registry); empty: the starting agent's own
   * tools. A task never gets start_task, handoffs or tools that post to other places.
   */
  tools: z
    .array(z.string())
    .default([])
    .describe(
      "tools tasks may use; empty means the starting agent's own tools (never start_task or handoffs)",
    ),
  /** Longest instructions an agent may give a task (characters). */
  maxInstructionChars: z
    .number()
    .int()
    .min(100)
    .max(100_000)
    .default(8_000)
    .describe("longest task instructions"),
  /** A paused task no one resumes is cancelled after this long, with a line in its thread. */
  pausedExpiryHours: z.number().positive().default(24).describe("a paused task is cancelled after this long"),
  /** `milestones`: one progress message per task in its thread, edited in place as it works. */
  progress: z
    .enum(["off", "milestones"])
    .default("off")
    .describe("milestones: one progress message per task, edited in place as steps finish"),
  /** Finished task records and their steps are deleted after this many days. */
  retentionDays: z
    .number()
    .positive()
    .default(7)
    .describe("finished tasks and their steps are kept this long"),
});

export type TasksConfig = z.output<typeof tasksConfigSchema>;
