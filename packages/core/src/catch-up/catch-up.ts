import { placeOf } from "../conversation/place-of.ts";
import type { ThreadNote } from "../memory/thread-notes.ts";
import type { Clock } from "../runtime/clock.ts";
import type { RunStepsReader } from "../steps/run-steps-log.ts";

/** Where a catch-up's material comes from: memory's notes, and (for a channel) the run-steps log. */
export interface CatchUpSources {
  /** What memory wrote about a conversation since a time, oldest first. */
  readonly notesOf: (key: string, since?: number) => Promise<ThreadNote[]>;
  /** Which threads of a place had runs, and when the asker last wrote there; absent without the log. */
  readonly runs?: Pick<RunStepsReader, "runsBetween"> | undefined;
  readonly clock: Clock;
}

const DAY = 86_400_000;
/** How far back a channel catch-up looks for the asker's last message and the threads since. */
const LOOK_BACK_MS = 30 * DAY;
const RUNS_READ = 5_000;
const THREADS_SHOWN = 8;
const NOTES_PER_THREAD = 12;

/**
 * A catch-up: in a thread with a memory, what memory wrote about it (archived sessions' summaries,
 * message summaries, the newest messages); elsewhere (a channel's top level, a new thread), the
 * place's threads that had messages since the asker's last message there, each with its notes.
 * Built from memory's summaries and entries — never a re-read of the history, and no model call.
 */
export async function catchUp(sources: CatchUpSources, key: string, userId: string): Promise<string> {
  const notes = await sources.notesOf(key);
  if (notes.length > 0) return ["**This thread so far**", ...notes.map(noteLine)].join("\n");
  if (!sources.runs)
    return "I have nothing remembered about this thread yet, and without the run-steps log (`steps:`) I cannot tell which threads of this place are new to you.";
  return placeCatchUp(sources, sources.runs, key, userId);
}

async function placeCatchUp(
  sources: CatchUpSources,
  runs: Pick<RunStepsReader, "runsBetween">,
  key: string,
  userId: string,
): Promise<string> {
  const place = placeOf(key);
  const now = sources.clock.now();
  const inPlace = (await runs.runsBetween(now - LOOK_BACK_MS, now + 1, { limit: RUNS_READ })).filter(
    (run) =>
      (run.conversationKey === place || run.conversationKey.startsWith(`${place}:`)) &&
      run.conversationKey !== key,
  );
  const asked = inPlace.filter((run) => run.userId === userId && run.trigger === "user_message");
  const since = Math.max(0, ...asked.map((run) => run.startedAt));
  const threads = new Map<string, number>();
  for (const run of inPlace) {
    if (run.startedAt <= since || run.trigger !== "user_message") continue;
    threads.set(run.conversationKey, Math.max(threads.get(run.conversationKey) ?? 0, run.startedAt));
  }
  const from = since > 0 ? `since your last message (${minute(since)} UTC)` : "in the last 30 days";
  const newest = [...threads].sort(([, a], [, b]) => b - a).slice(0, THREADS_SHOWN);
  if (newest.length === 0) return `Nothing new in this place's threads ${from}.`;
  const sections = await Promise.all(
    newest.map(async ([thread, lastAt]) => {
      const notes = (await sources.notesOf(thread, since)).slice(-NOTES_PER_THREAD);
      const title = notes.find((note) => note.kind === "asked")?.text ?? "a thread";
      const lines = notes.length > 0 ? notes.map(noteLine) : ["- (nothing summarized yet)"];
      return [`**${shortTitle(title)}** (last message ${minute(lastAt)} UTC)`, ...lines].join("\n");
    }),
  );
  const more = threads.size > newest.length ? `\n\n…and ${threads.size - newest.length} more threads.` : "";
  return [`**Threads here ${from}**`, ...sections].join("\n\n") + more;
}

function noteLine(note: ThreadNote): string {
  if (note.kind === "session") return `- ${note.at ? `${minute(note.at)}: ` : ""}${note.text}`;
  return `- ${note.kind}: ${note.text}`;
}

function minute(at: number): string {
  return new Date(at).toISOString().slice(0, 16).replace("T", " ");
}

function shortTitle(text: string): string {
  const cleaned = text.replace(/^Noted: /, "");
  return cleaned.length <= 60 ? cleaned : `${cleaned.slice(0, 59)}…`;
}
