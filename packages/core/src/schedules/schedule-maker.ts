import { createHash, randomBytes } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import { type ConversationRef, decodeConversationKey, encodeConversationKey } from "../conversation/ref.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { COMMAND_PREFIX_KEY } from "../team/limits.ts";
import type { ScheduleRecord } from "./schedule-record.ts";
import { ownerKeyOf, type ScheduleStore } from "./schedule-store.ts";
import { describeTiming, firstFire, formatInZone, ScheduleTimeError, type Timing } from "./schedule-time.ts";
import type { SchedulesConfig } from "./schedules-config.ts";

export const SCHEDULE_TOOL = "schedule";
const MAX_TITLE_CHARS = 120;

/** Where posts the bot makes on its own go for a conversation, and the channel it is in (see Adapter.placeForPosts). */
export type PlaceForPosts = (
  conversation: ConversationRef,
  startedBy: string | undefined,
) => { readonly post: ConversationRef; readonly channel: ConversationRef };

export interface ScheduleMakerOptions {
  readonly store: ScheduleStore;
  readonly config: SchedulesConfig;
  /** The message that opened a request (a schedule made in its run answers there). */
  readonly originOf: (requestId: string) => Promise<{ messageId?: string } | undefined>;
  /** A person's time zone (their setting, their platform profile, the default). */
  readonly zoneOf: (platform: string, userId: string) => Promise<string>;
  readonly placeFor: PlaceForPosts;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A new schedule is due at its first fire: the firing side looks again. */
  readonly made: (record: ScheduleRecord) => void;
}

/** What an agent's `schedule` call asks for. */
export interface MakeRequest {
  readonly title: string;
  readonly instructions: string;
  readonly at?: string | undefined;
  readonly cron?: string | undefined;
  readonly timeZone?: string | undefined;
  readonly digest?: boolean | undefined;
  readonly key: string;
  readonly userId: string;
  readonly requestId?: string;
  readonly runId?: string;
  readonly toolCallId?: string;
  readonly prefix?: string;
}

/**
 * Makes schedules for agents: reads the time in the person's zone, checks it against the limits
 * (every refusal is a sentence naming what was wrong and an example, for the agent to pass on),
 * writes the record and answers with the next fire in the person's zone. The id derives from the run
 * and tool call, so the same call run again after a crash finds its schedule instead of making a
 * second.
 */
export class ScheduleMaker {
  readonly #options: ScheduleMakerOptions;

  constructor(options: ScheduleMakerOptions) {
    this.#options = options;
  }

  /** The sentence the agent reads: scheduled (with the next fire), or why not. */
  async make(request: MakeRequest): Promise<string> {
    const { store, config, clock, logger } = this.#options;
    const prefix = request.prefix ?? "/";
    const id = scheduleIdFor(request);
    const existing = await store.get(id);
    if (existing) return madeSentence(existing, prefix);
    const title = request.title.trim().slice(0, MAX_TITLE_CHARS);
    const instructions = request.instructions.trim();
    if (title === "" || instructions === "")
      return "Not scheduled: give the schedule a title and instructions.";
    if (instructions.length > config.maxInstructionChars)
      return `Not scheduled: the instructions are ${instructions.length} characters; at most ${config.maxInstructionChars} are allowed.`;
    const conversation = decodeConversationKey(request.key);
    const timeZone = await this.#zone(request, conversation);
    if (typeof timeZone !== "string") return timeZone.refused;
    const timing = timingOf(request);
    if (typeof timing === "string") return timing;
    let nextFireAt: number;
    try {
      nextFireAt = firstFire(timing, timeZone, clock.now(), config.minIntervalMinutes * 60_000);
    } catch (error) {
      if (error instanceof ScheduleTimeError) return `Not scheduled: ${error.message}`;
      throw error;
    }
    const origin = request.requestId ? await this.#options.originOf(request.requestId) : undefined;
    const place = this.#options.placeFor(conversation, origin?.messageId);
    const home = {
      key: request.key,
      post: place.post,
      ...(origin?.messageId && samePlace(place.post, conversation) ? { replyTo: origin.messageId } : {}),
    };
    const owner = ownerKeyOf({ ownerId: request.userId, home, source: "chat" });
    const count = await store.countOfOwner(owner);
    if (count >= config.maxPerUser)
      return `Not scheduled: you already have ${count} schedules, the most one person may have (${config.maxPerUser}). Cancel one with ${prefix}schedule cancel <id>; ${prefix}schedules lists them.`;
    const now = clock.now();
    const record: ScheduleRecord = {
      id,
      timing,
      timeZone,
      instructions,
      title,
      home,
      ownerId: request.userId,
      source: "chat",
      ...(request.digest ? { digest: { place: encodeConversationKey(place.channel) } } : {}),
      status: "active",
      nextFireAt,
      fireCount: 0,
      skippedCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    await store.save(record, undefined);
    logger.info("schedule made", { scheduleId: id, key: request.key, timing, timeZone, nextFireAt });
    this.#options.made(record);
    return madeSentence(record, prefix);
  }

  async #zone(request: MakeRequest, conversation: ConversationRef): Promise<string | { refused: string }> {
    const wanted = request.timeZone?.trim();
    if (!wanted) return this.#options.zoneOf(conversation.platform, request.userId);
    try {
      return new Intl.DateTimeFormat("en-US", { timeZone: wanted }).resolvedOptions().timeZone;
    } catch {
      return {
        refused: `Not scheduled: "${wanted}" is not a time zone I know. Use an IANA name like "Europe/Berlin" or "America/New_York", or leave it out to use the person's own.`,
      };
    }
  }

  /** `schedule` for agents: the conversation, person, request and run come from the run, never from the model. */
  tool(): StructuredToolInterface {
    return tool(async (input, config) => this.make({ ...input, ...runOf(config) }), {
      name: SCHEDULE_TOOL,
      description:
        "Schedule a reminder or a recurring run in this conversation: at the time you give, you will be asked to act on the instructions here (remind the person, summarise, check in). " +
        "Give `at` for once or `cron` for recurring, in the person's time zone (the current date and time are in your instructions; work out the exact date from them). " +
        "After it is made, tell the person in words when it runs next (the result says).",
      schema: z.object({
        title: z.string().min(1).describe("A short name the person will recognise, e.g. 'Send the invoice'."),
        instructions: z
          .string()
          .min(1)
          .describe(
            "What to do when it fires, as a note to yourself at that time, e.g. 'Remind the person to send the invoice to ACME.'",
          ),
        at: z
          .string()
          .optional()
          .describe(
            "Once: the local date and 24-hour time, YYYY-MM-DDTHH:MM, e.g. '2025-03-11T09:00' for tomorrow at 9 when today is 10 March 2025.",
          ),
        cron: z
          .string()
          .optional()
          .describe(
            "Recurring: five cron fields (minute hour day-of-month month day-of-week), e.g. '0 8 * * 1' for every Monday at 08:00, '30 17 * * 1-5' for weekdays at 17:30.",
          ),
        timeZone: z
          .string()
          .optional()
          .describe(
            "IANA time zone such as 'Europe/Berlin'; leave it out to use the person's own time zone.",
          ),
        digest: z
          .boolean()
          .optional()
          .describe(
            "True when each run should summarise what was discussed in this channel since the previous run (it then gets the conversations' summaries).",
          ),
      }),
      // The schedule id derives from run id and tool call id: the same call repeated finds the same schedule.
      metadata: { acceptsIdempotencyKey: true },
    });
  }
}

function timingOf(request: Pick<MakeRequest, "at" | "cron">): Timing | string {
  const at = request.at?.trim();
  const cron = request.cron?.trim();
  if (at && cron) return "Not scheduled: give either `at` (once) or `cron` (recurring), not both.";
  if (at) return { kind: "once", at };
  if (cron) return { kind: "cron", cron };
  return "Not scheduled: say when — `at` for once (e.g. '2025-03-11T09:00') or `cron` for recurring (e.g. '0 8 * * 1' for every Monday at 08:00).";
}

function runOf(config: RunnableConfig | undefined) {
  const configurable = config?.configurable ?? {};
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const key = text(configurable.thread_id);
  if (!key) throw new Error("schedule needs the conversation (thread_id) of the run");
  const requestId = text(configurable.request_id);
  const runId = text(configurable.run_id);
  const toolCallId = text(configurable.tool_call_id);
  const prefix = text(configurable[COMMAND_PREFIX_KEY]);
  return {
    key,
    userId: text(configurable.user_id) ?? "unknown",
    ...(requestId ? { requestId } : {}),
    ...(runId ? { runId } : {}),
    ...(toolCallId ? { toolCallId } : {}),
    ...(prefix ? { prefix } : {}),
  };
}

/** `S-` and six characters of base32 from the run and tool call (random when the run has no ids). */
export function scheduleIdFor(request: Pick<MakeRequest, "runId" | "toolCallId">): string {
  const seed =
    request.runId && request.toolCallId
      ? `${request.runId}:${request.toolCallId}`
      : randomBytes(16).toString("hex");
  const digest = createHash("sha256").update(seed).digest();
  const alphabet = "ABCDEFGHJKMNPQRSTVWXYZ23456789";
  let id = "";
  for (let index = 0; index < 6; index++) id += alphabet[(digest[index] ?? 0) % alphabet.length];
  return `S-${id}`;
}

/**
 * The ids what people type may mean, most likely first: `s-7kq2md`, `7KQ2MD` and `S-7KQ2MD` name a
 * chat schedule; `support-digest` names a declared one.
 */
export function scheduleIdsFor(text: string): string[] {
  const trimmed = text.trim();
  const upper = trimmed.toUpperCase();
  const chat = upper.startsWith("S-") ? upper : `S-${upper}`;
  return [...new Set([trimmed, chat])];
}

function samePlace(a: ConversationRef, b: ConversationRef): boolean {
  return encodeConversationKey(a) === encodeConversationKey(b);
}

function madeSentence(record: ScheduleRecord, prefix: string): string {
  // A one-time schedule's description is its run; a recurring one's next run is said too.
  const next =
    record.timing.kind === "once"
      ? ""
      : record.nextFireAt === undefined
        ? " It has no run left."
        : ` Next run: ${formatInZone(record.nextFireAt, record.timeZone)}.`;
  return `Scheduled ${record.id} "${record.title}": ${describeTiming(record.timing, record.timeZone, record.nextFireAt)}.${next} Pause or cancel it with ${prefix}schedule pause ${record.id} or ${prefix}schedule cancel ${record.id}; ${prefix}schedules lists them.`;
}
