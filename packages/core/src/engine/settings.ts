import type { MidRunPolicy } from "./serializer.ts";

export interface EngineSettings {
  /** Text starting with one of these is a command: `/reset`, `!reset`. */
  readonly commandPrefixes: readonly string[];
  /** Longer than any platform's redelivery window (Slack retries for minutes, Matrix re-syncs after a crash). */
  readonly dedupeTtlMs: number;
  /** See ConversationSerializer: renewed by a heartbeat, so it only bounds recovery after a crash. */
  readonly lockTtlMs: number;
  readonly midRunPolicy: MidRunPolicy;
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  commandPrefixes: ["/", "!"],
  dedupeTtlMs: 7 * 24 * 60 * 60 * 1000,
  lockTtlMs: 30_000,
  midRunPolicy: "queue",
};
