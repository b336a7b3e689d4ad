/**
 * The LangGraph checkpointer the agent team saves conversations in, opened from the
 * `checkpoints:` URL. Core's `openCheckpointer(url)` is not exported yet; until it is, this
 * returns undefined and the app runs the single-agent responder (see build-app.ts).
 */
import type { Logger, TeamOptions } from "@switchboard/core";

export interface OpenedCheckpointer {
  readonly saver: TeamOptions["checkpointer"];
  /** A short description for logs (no passwords). */
  readonly description: string;
  close(): Promise<void>;
}

export async function openCheckpointerFor(
  _url: string,
  _options: { cwd: string; logger: Logger },
): Promise<OpenedCheckpointer | undefined> {
  return undefined;
}
