import { z } from "zod";
import { decodeConversationKey } from "../conversation/ref.ts";
import { canonicalTimeZone, checkTiming, ScheduleTimeError, type Timing } from "./schedule-time.ts";

/** The name of an operator's schedule: its id in /schedules and the console. */
const NAME = /^[a-z][a-z0-9-]{1,40}$/;

/** A schedule an operator declares in switchboard.yaml (a daily digest of a channel, a weekly check-in). */
export const declaredScheduleSchema = z
  .strictObject({
    name: z
      .string()
      .regex(NAME, "use 2 to 41 lowercase letters, digits and dashes, starting with a letter")
      .describe(
        "the schedule's id in /schedules and the console; keep it stable (renaming makes a new schedule)",
      ),
    cron: z
      .string()
      .optional()
      .describe('a recurring schedule: five cron fields in timeZone, e.g. "0 8 * * *" (daily at 08:00)'),
    at: z
      .string()
      .optional()
      .describe('a one-time schedule: local date and time in timeZone, e.g. "2025-03-10T09:00"'),
    timeZone: z
      .string()
      .optional()
      .describe("IANA time zone the time is read in (e.g. Europe/Berlin); default: defaults.timeZone"),
    conversation: z
      .string()
      .describe(
        "where it runs and posts, as a conversation key: a channel (`slack:<team>:<channel>`, `discord:<guild>:<channel>`, `matrix:<room id>`) or a thread's key",
      ),
    title: z.string().optional().describe("a short name people see in lists; default: the name"),
    instructions: z.string().min(1).describe("what the agent does when it fires (the run's message)"),
    digest: z
      .union([z.boolean(), z.string()])
      .default(false)
      .describe(
        "true: each run also gets the conversations of the conversation's place since the previous run, to summarise; or the conversation key of another place",
      ),
    owner: z
      .string()
      .optional()
      .describe("platform user id the runs belong to (usage, time zone); default: the operator"),
  })
  .superRefine((entry, context) => {
    if ((entry.cron === undefined) === (entry.at === undefined))
      context.addIssue({ code: "custom", message: "give exactly one of cron (recurring) or at (once)" });
    try {
      decodeConversationKey(entry.conversation);
    } catch (error) {
      context.addIssue({
        code: "custom",
        path: ["conversation"],
        message: error instanceof Error ? error.message : String(error),
      });
    }
    const timing = timingOf(entry);
    if (!timing) return;
    try {
      const zone = entry.timeZone === undefined ? "UTC" : canonicalTimeZone(entry.timeZone);
      checkTiming(timing, zone);
    } catch (error) {
      if (!(error instanceof ScheduleTimeError)) throw error;
      context.addIssue({ code: "custom", path: [entry.cron ? "cron" : "at"], message: error.message });
    }
  });

/** One schedule declared in switchboard.yaml, parsed. */
export type DeclaredSchedule = z.output<typeof declaredScheduleSchema>;

export function timingOf(entry: { cron?: string | undefined; at?: string | undefined }): Timing | undefined {
  if (entry.cron !== undefined) return { kind: "cron", cron: entry.cron };
  if (entry.at !== undefined) return { kind: "once", at: entry.at };
  return undefined;
}

/** The `schedules:` section: limits of the schedules people make, and the operator's declared schedules. */
export const schedulesConfigSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe(
      "agents may make schedules and reminders (the schedule tool); declared schedules run either way",
    ),
  agents: z
    .array(z.string())
    .default([])
    .describe("agents that get the schedule tool; empty means every agent of the team"),
  catchUpMinutes: z
    .number()
    .min(0)
    // Below the engine's dedupe window (7 days): a fire queued before a crash is never queued twice.
    .max(6 * 24 * 60)
    .default(60)
    .describe(
      "a fire missed while no process ran is made late, with a note, when it is at most this old; older ones are skipped with one line in the thread",
    ),
  maxPerUser: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(20)
    .describe("schedules one person may have that can still fire (active or paused)"),
  minIntervalMinutes: z
    .number()
    .min(1)
    .max(7 * 24 * 60)
    .default(5)
    .describe("recurring schedules firing more often than this are refused"),
  maxInstructionChars: z
    .number()
    .int()
    .min(50)
    .max(50_000)
    .default(4_000)
    .describe("longest instructions a schedule may carry"),
  pollSeconds: z
    .number()
    .min(0.1)
    .max(60)
    .default(1)
    .describe("how often the due schedules are read (role all: this process; a cluster: one worker's round)"),
  retentionDays: z
    .number()
    .positive()
    .default(30)
    .describe("ended schedules (done, cancelled) and their fire history are kept this long"),
  declared: z
    .array(declaredScheduleSchema)
    .default([])
    .superRefine((entries, context) => {
      const seen = new Set<string>();
      for (const [index, entry] of entries.entries()) {
        if (seen.has(entry.name))
          context.addIssue({
            code: "custom",
            path: [index, "name"],
            message: `"${entry.name}" is declared twice`,
          });
        seen.add(entry.name);
      }
    })
    .describe("schedules the operator declares (a daily digest of a channel…); removing one cancels it"),
});

/** The `schedules:` section, parsed (defaults filled in). */
export type SchedulesConfig = z.output<typeof schedulesConfigSchema>;
/** The `schedules:` section as written (every key optional). */
export type SchedulesConfigInput = z.input<typeof schedulesConfigSchema>;
