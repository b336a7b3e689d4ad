import type { CpuSlotSettings } from "../capacity/event-loop-load.ts";
import { DEFAULT_TYPING_DELAY_MS } from "../delivery/deliverer.ts";
import type { MidRunPolicy } from "./serializer-types.ts";

export interface EngineSettings {
  /** Text starting with one of these is a command: `/reset`, `!reset`. */
  readonly commandPrefixes: readonly string[];
  /** Longer than any platform's redelivery window (Slack retries for minutes, Matrix re-syncs after a crash). */
  readonly dedupeTtlMs: number;
  /** See ConversationSerializer: renewed by a heartbeat, so it only bounds recovery after a crash. */
  readonly lockTtlMs: number;
  readonly midRunPolicy: MidRunPolicy;
  /**
   * Turns in progress at once in this process, waiting on a model included: a ceiling for memory,
   * not a speed limit (see TurnAdmission). Beyond it conversations wait, queued.
   */
  readonly maxConcurrentTurns: number;
  /**
   * The CPU slots turns compute in (a turn waiting on a model or a tool holds none): how many to
   * start with, the bounds, and the event loop delay they are sized to stay under.
   */
  readonly cpuSlots: CpuSlotSettings;
  /**
   * A unit of work running longer is cancelled (a safety net above the team's wall time): a turn
   * still working ends as stopped; one whose answer is recorded stays queued, and the next try
   * delivers that answer (or, cut again, gives it up).
   */
  readonly maxTurnMs: number;
  /** How often this process looks for queued work nobody drains (a crashed holder's). */
  readonly recoveryIntervalMs: number;
  /** A turn still running after this long shows the working indicator (see Deliverer.whileTyping). */
  readonly typingDelayMs: number;
  /**
   * Intake refuses a message the store has not made durable within this long (see
   * intake-deadline.ts): under Slack's 3 s acknowledgement window, so Slack hears a refusal.
   */
  readonly intakeDeadlineMs: number;
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  commandPrefixes: ["/", "!"],
  dedupeTtlMs: 7 * 24 * 60 * 60 * 1000,
  lockTtlMs: 30_000,
  midRunPolicy: "queue",
  maxConcurrentTurns: 2_000,
  cpuSlots: { initial: 16, min: 2, max: 256, targetDelayMs: 40 },
  maxTurnMs: 11 * 60 * 1000,
  recoveryIntervalMs: 5_000,
  typingDelayMs: DEFAULT_TYPING_DELAY_MS,
  intakeDeadlineMs: 2_500,
};
