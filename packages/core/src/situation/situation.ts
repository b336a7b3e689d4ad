import type { PlaceNames } from "../conversation/adapter.ts";
import { type ConversationRef, decodeConversationKey } from "../conversation/ref.ts";
import type { Logger } from "../runtime/logger.ts";
import type { UserTimeZones } from "./user-time-zones.ts";

const PLATFORM_NAMES: Readonly<Record<string, string>> = {
  slack: "Slack",
  discord: "Discord",
  matrix: "Matrix",
  console: "the terminal console",
  web: "the operator console's chat",
};

const FORMATS = new Map<string, Intl.DateTimeFormat>();
/** The date-and-time text last formatted per zone, with its minute: `formatToParts` is the line's whole cost. */
const LAST_WHEN = new Map<string, { readonly minute: number; readonly text: string }>();
const MINUTE_MS = 60_000;

/**
 * "Current date and time: Monday, 10 March 2025, 09:14 (Europe/Berlin, GMT+01:00). You are on
 * Slack, in #support." — what every agent's prompt ends with, in the asking person's zone. To the minute:
 * runs within the same minute see the same line (a provider's prompt cache holds across them).
 */
export function situationLine(facts: {
  readonly now: number;
  readonly timeZone: string;
  readonly platform: string;
  readonly place?: PlaceNames | undefined;
}): string {
  const platform = PLATFORM_NAMES[facts.platform] ?? facts.platform;
  return `Current date and time: ${whenText(facts.now, facts.timeZone)}. You are on ${platform}${whereText(facts.place)}.`;
}

/** "Monday, 10 March 2025, 09:14 (Europe/Berlin, GMT+01:00)"; formatted once per zone and minute. */
function whenText(now: number, timeZone: string): string {
  const minute = Math.floor(now / MINUTE_MS);
  const last = LAST_WHEN.get(timeZone);
  if (last?.minute === minute) return last.text;
  let format = FORMATS.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      weekday: "long",
      day: "numeric",
      month: "long",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "longOffset",
    });
    FORMATS.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(now).map((part) => [part.type, part.value]));
  const text = `${parts.weekday}, ${parts.day} ${parts.month} ${parts.year}, ${parts.hour}:${parts.minute} (${timeZone}, ${parts.timeZoneName})`;
  // One entry per zone in use (bounded as FORMATS is: by the zones people have).
  LAST_WHEN.set(timeZone, { minute, text });
  return text;
}

function whereText(place: PlaceNames | undefined): string {
  if (!place?.room) return "";
  if (place.thread) return `, in ${place.room} (thread "${place.thread}")`;
  return `, in ${place.room}`;
}

export interface SituationOptions {
  readonly zones: UserTimeZones;
  /** The place's readable names, where its adapter knows them (adapters cache these lookups). */
  readonly describePlace: (conversation: ConversationRef) => Promise<PlaceNames | undefined>;
  readonly logger: Logger;
}

/**
 * Tells agents when and where they are: the asking person's local date and time and the platform
 * and place of the conversation. Cheap by design: the zone is cached per person, the place per
 * channel by its adapter; no model call.
 */
export class Situation {
  readonly #options: SituationOptions;

  constructor(options: SituationOptions) {
    this.#options = options;
  }

  /** The line for a run in conversation `key` asked by `userId` at `now`. */
  async lineFor(key: string, userId: string, now: number): Promise<string> {
    const conversation = decodeConversationKey(key);
    const [timeZone, place] = await Promise.all([
      this.#options.zones.zoneOf(conversation.platform, userId),
      this.#options.describePlace(conversation).catch((error: unknown) => {
        this.#options.logger.debug("could not name a conversation's place for the prompt", { key, error });
        return undefined;
      }),
    ]);
    return situationLine({ now, timeZone, platform: conversation.platform, place });
  }
}
