import type { TaskRecord } from "./task-record.ts";

/**
 * What a task's model is told besides its instructions: who it is, that nobody reads along, and
 * how to finish. The instructions themselves are the thread's first message.
 */
export function taskSystemPrompt(record: TaskRecord): string {
  return [
    `You are ${record.agent}, working alone on a background task: "${record.title}".`,
    "Nobody reads your intermediate messages. Work step by step with your tools until the task is done.",
    "Messages that start with 'Guidance from' come from the person who asked; follow them.",
    "When you are done, answer without calling a tool: that answer is posted to the person as the task's result, so make it complete and self-contained.",
    `You have at most ${record.maxIterations} steps (model calls).`,
    // The start, not the moment of each step: the prompt stays the same, so providers' prompt caches hold.
    `The task was started at ${new Date(record.createdAt).toISOString()} (UTC).`,
  ].join("\n");
}
