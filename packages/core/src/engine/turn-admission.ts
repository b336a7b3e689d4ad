/**
 * When a turn may start in this process. Two limits, for two different things:
 *
 * - **Turns in progress** (`maxTurns`, config `engine.maxConcurrentTurns`): a hard ceiling for
 *   memory. A turn in progress holds its conversation's history, prompt and partial answer, and
 *   most of them are only waiting on a model; the ceiling is sized in the thousands.
 * - **CPU slots**: turns compute (store calls, graph steps) only while they hold one, and give it
 *   back while they wait on a model or a tool (capacity/cpu-slots.ts). How many slots there are
 *   follows the event loop's delay (capacity/event-loop-load.ts): that delay is what an incoming
 *   acknowledgement waits for, so intake stays first however many turns are in progress.
 *
 * Both lines are first come, first served; a turn that goes on after a model call is served before
 * turns that have not started, so answers already on their way finish first.
 */

import { CpuSlots, type CpuSlotsState, type TurnLease } from "../capacity/cpu-slots.ts";
import {
  type CpuSlotSettings,
  EventLoopLoad,
  type EventLoopSample,
  nextCpuSlotLimit,
} from "../capacity/event-loop-load.ts";
import { type Permit, PermitQueue } from "../capacity/permit-queue.ts";
import { DEFAULT_ENGINE_SETTINGS } from "./settings.ts";

/** How often the event loop's delay is looked at (and the CPU slots resized). */
const WINDOW_MS = 250;

export interface AdmissionState {
  /** Turns admitted and not finished (the ones waiting on a model included). */
  readonly turnsInProgress: number;
  readonly maxTurns: number;
  /** Turns waiting to start: for the ceiling or for a CPU slot. */
  readonly waitingToStart: number;
  readonly cpu: CpuSlotsState;
  readonly eventLoop: EventLoopSample;
}

/** A started turn: run its work through `lease`, `end()` it exactly once. */
export interface AdmittedTurn {
  readonly lease: TurnLease;
  end(): void;
}

export class TurnAdmission {
  readonly #ceiling: PermitQueue;
  readonly #cpu: CpuSlots;
  readonly #load: EventLoopLoad;
  readonly #cpuSettings: CpuSlotSettings;
  readonly #waiting = new Set<string>();
  #sampling = false;

  constructor(options: { maxTurns: number; cpu?: CpuSlotSettings }) {
    this.#cpuSettings = options.cpu ?? DEFAULT_ENGINE_SETTINGS.cpuSlots;
    this.#ceiling = new PermitQueue({ limit: options.maxTurns });
    this.#cpu = new CpuSlots(this.#cpuSettings.initial);
    this.#load = new EventLoopLoad({
      windowMs: WINDOW_MS,
      onWindow: (sample) => {
        const saturated = this.#cpu.takeSaturation();
        this.#cpu.limit = nextCpuSlotLimit(this.#cpu.limit, { sample, saturated }, this.#cpuSettings);
      },
    });
  }

  /**
   * Waits for room under the ceiling, then for a CPU slot. Rejects with the signal's reason when it
   * aborts first.
   */
  async admit(key: string, signal: AbortSignal): Promise<AdmittedTurn> {
    if (!this.#sampling) {
      this.#sampling = true;
      this.#load.start();
    }
    this.#waiting.add(key);
    let room: Permit | undefined;
    try {
      room = await this.#ceiling.acquire({ signal });
      const lease = await this.#cpu.lease(key, signal);
      const held = room;
      let ended = false;
      return {
        lease,
        end: () => {
          if (ended) return;
          ended = true;
          lease.end();
          held.release();
        },
      };
    } catch (error) {
      room?.release();
      throw error;
    } finally {
      this.#waiting.delete(key);
    }
  }

  /** Whether the conversation's turn is waiting to start here. */
  isWaiting(key: string): boolean {
    return this.#waiting.has(key);
  }

  state(): AdmissionState {
    return {
      turnsInProgress: this.#ceiling.inUse,
      maxTurns: this.#ceiling.limit,
      waitingToStart: this.#waiting.size,
      cpu: this.#cpu.state(),
      eventLoop: this.#load.last,
    };
  }

  stop(): void {
    this.#load.stop();
    this.#sampling = false;
  }
}
