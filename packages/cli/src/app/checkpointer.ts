/**
 * The LangGraph checkpointer the agent team saves conversations in, opened from the
 * `checkpoints:` URL (the store URL unless configured otherwise). Given the store, checkpoints in
 * the store's own SQLite file use the store's connection.
 */
import { type Logger, type OpenedCheckpointer, openCheckpointer, type Store } from "@switchboard/core";

export type { OpenedCheckpointer };

export function openCheckpointerFor(
  url: string,
  options: { cwd: string; logger: Logger; store?: Store },
): Promise<OpenedCheckpointer> {
  return openCheckpointer(url, {
    cwd: options.cwd,
    logger: options.logger,
    ...(options.store ? { store: options.store } : {}),
  });
}
