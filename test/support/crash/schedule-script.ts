/**
 * A model for schedule tests. Asked to "remind me … <token>", it calls the `schedule` tool for a
 * moment `leadMs` from now, written as the local time in the person's zone (as a model reading the
 * date line would); it passes the tool's answer on. A scheduled run (its message says so) answers
 * with the reminder for the token in its instructions; `firedReply` may delay or change that answer.
 * Declared schedules name themselves in their instructions (`Fire <name>.`): the answer repeats it.
 */
import { type ChatRequest, type StubReply, textOf } from "../model/chat-request.ts";
import { shortAnswer } from "./scripted-answers.ts";

export const SCHEDULED_MARK = "(Scheduled run of schedule";
const TOKEN = /\b(q\d{3})\b/;

export const reminderText = (token: string) => `Reminder ${token}: send the invoice.`;
export const firedText = (name: string) => `Fired ${name}.`;

/** "2025-03-11T09:00:05": the wall-clock time of `instant` in `zone`, to the second. */
export function localDateTime(instant: number, zone: string): string {
  return new Date(instant).toLocaleString("sv-SE", { timeZone: zone }).replace(" ", "T");
}

export interface ScheduleScriptOptions {
  /** The zone the model writes times in (the person's). */
  readonly zone: string;
  /** How far ahead "remind me" asks for. */
  readonly leadMs: number;
  /** The answer of a scheduled run, when a test wants it held or changed. */
  readonly firedReply?: (token: string, request: ChatRequest) => StubReply | undefined;
}

export function scheduleScript(options: ScheduleScriptOptions) {
  return (request: ChatRequest): StubReply => {
    const last = request.body.messages.at(-1);
    const user = [...request.body.messages].reverse().find((message) => message.role === "user");
    const text = user ? textOf(user.content) : "";
    if (text.includes(SCHEDULED_MARK)) {
      const declared = /Fire ([a-z0-9-]+)\./.exec(text)?.[1];
      if (declared) return { kind: "answer", text: firedText(declared) };
      const token = TOKEN.exec(text)?.[1] ?? "unknown";
      return options.firedReply?.(token, request) ?? { kind: "answer", text: reminderText(token) };
    }
    const scheduled = last?.role === "tool" ? request.toolResults.get("schedule") : undefined;
    if (scheduled !== undefined) return { kind: "answer", text: scheduled };
    const token = TOKEN.exec(text)?.[1] ?? "unknown";
    if (/remind me/i.test(text) && request.toolNames.includes("schedule"))
      return {
        kind: "answer",
        toolCalls: [
          {
            name: "schedule",
            args: {
              title: `Invoice ${token}`,
              instructions: `Remind about ${token}: send the invoice.`,
              at: localDateTime(Date.now() + options.leadMs, options.zone),
            },
          },
        ],
      };
    return { kind: "answer", text: shortAnswer(token) };
  };
}
