import { UserFacingError } from "../runtime/errors.ts";

export type TeamLimit = "iterations" | "repeated-tool" | "wall-time";

/** A turn stopped by a guard against runaway loops; the user reads why and what to do. */
export class TeamLimitError extends UserFacingError {
  readonly limit: TeamLimit;
  constructor(limit: TeamLimit, userMessage: string) {
    super(userMessage, { detail: `team limit reached: ${limit}` });
    this.name = "TeamLimitError";
    this.limit = limit;
  }
}

/** Where a run's configurable keeps the command prefix that works on its platform (`/`, `!`). */
export const COMMAND_PREFIX_KEY = "command_prefix";

export const limitMessages = {
  iterations: (max: number, prefix = "/") =>
    `I stopped after ${max} steps without finishing this answer (step limit). Try a narrower question, or ${prefix}reset to start over.`,
  repeatedTool: (name: string, max: number, prefix = "/") =>
    `I stopped because the tool ${name} was called more than ${max} times in a row (loop guard). Try rephrasing, or ${prefix}reset.`,
  wallTime: (seconds: number) =>
    `I stopped because this answer took longer than ${seconds < 120 ? `${seconds} seconds` : `${Math.round(seconds / 60)} minutes`} (time limit). Please try again.`,
};
