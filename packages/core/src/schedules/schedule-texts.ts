/** What people and agents read about schedules: the run's message, the thread's notices, list lines. */
import type { DigestConversation } from "./digest-material.ts";
import { LATE_AFTER_MS, type ScheduleRecord } from "./schedule-record.ts";
import { describeTiming, formatInZone } from "./schedule-time.ts";

/** The message a fire's run answers: what it is, when it was due, whether it is late, and the instructions. */
export function scheduledRunText(
  record: ScheduleRecord,
  dueAt: number,
  lateMs: number,
  digest?: { since: number; conversations: readonly DigestConversation[] | undefined },
): string {
  const lines = [
    `(Scheduled run of schedule ${record.id}, ${describeTiming(record.timing, record.timeZone)}; no person wrote this message. It was due at ${formatInZone(dueAt, record.timeZone)}.${
      lateMs > LATE_AFTER_MS
        ? ` It runs ${durationText(lateMs)} late because Switchboard was not running at that time: say so in one short sentence.`
        : ""
    } Write the message to post now, following these instructions.)`,
    "",
    record.instructions,
  ];
  if (digest) lines.push("", ...digestLines(record, digest.since, digest.conversations));
  return lines.join("\n");
}

function digestLines(
  record: ScheduleRecord,
  since: number,
  conversations: readonly DigestConversation[] | undefined,
): string[] {
  const from = formatInZone(since, record.timeZone);
  if (conversations === undefined)
    return [`(No material: the run-steps log is off, so the conversations since ${from} cannot be listed.)`];
  if (conversations.length === 0) return [`(Nobody talked with the bot here since ${from}.)`];
  return [
    `Conversations here since ${from} (busiest first), with what memory noted about them:`,
    ...conversations.map((conversation) => {
      const head = `- ${conversation.key}: ${conversation.turns} message${conversation.turns === 1 ? "" : "s"}, last at ${formatInZone(conversation.lastActiveAt, record.timeZone, false)}`;
      const notes = conversation.notes.map((note) => `  - ${note}`);
      return [head, ...(notes.length > 0 ? notes : ["  - (no summary yet)"])].join("\n");
    }),
  ];
}

/** What the thread reads when fires were missed too long ago to catch up. */
export function skippedText(
  record: ScheduleRecord,
  skipped: { count: number; first: number; last: number },
  catchUpMs: number,
): string {
  const runs = skipped.count === 1 ? "one run" : `${skipped.count} runs`;
  const when =
    skipped.count === 1
      ? `due ${formatInZone(skipped.first, record.timeZone)}`
      : `due between ${formatInZone(skipped.first, record.timeZone, false)} and ${formatInZone(skipped.last, record.timeZone)}`;
  return `Schedule ${record.id} (${record.title}) skipped ${runs} ${when}: Switchboard was not running then, and runs more than ${durationText(catchUpMs)} late are not made up.`;
}

/** One line per schedule: id, title, rhythm, next fire, status. */
export function scheduleLine(record: ScheduleRecord): string {
  const next =
    record.status === "active" && record.nextFireAt !== undefined
      ? `next ${formatInZone(record.nextFireAt, record.timeZone)}`
      : record.status === "paused"
        ? `paused${record.changedBy ? ` by ${record.changedBy}` : ""}${record.reason ? ` (${record.reason})` : ""}`
        : record.status;
  const fires = record.fireCount === 1 ? "fired once" : `fired ${record.fireCount} times`;
  return `${record.id} "${record.title}" — ${describeTiming(record.timing, record.timeZone, record.nextFireAt ?? record.lastFireAt)}; ${next}; ${fires}`;
}

export function durationText(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.max(1, Math.round(ms / 1000))} seconds`;
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} hours` : `${Math.round(hours / 24)} days`;
}
