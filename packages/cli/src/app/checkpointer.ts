/**
 * The LangGraph checkpointer the agent team saves conversations in, opened from the
 * `checkpoints:` URL (the store URL unless configured otherwise).
 */
import { type Logger, type OpenedCheckpointer, openCheckpointer } from "@switchboard/core";

export type { OpenedCheckpointer };

export function openCheckpointerFor(
  url: string,
  options: { cwd: string; logger: Logger },
): Promise<OpenedCheckpointer> {
  return openCheckpointer(url, { cwd: options.cwd, logger: options.logger });
}
