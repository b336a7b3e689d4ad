/**
 * What the event loop is going through, measured by Node itself (`perf_hooks`): how late timers
 * fire (`monitorEventLoopDelay`) and the share of time spent running code (`eventLoopUtilization`),
 * per window. A platform's acknowledgement waits for exactly that delay, so the CPU slots of turns
 * are sized by it (`nextCpuSlotLimit`): more turns compute at once while the loop keeps up, fewer
 * as soon as it falls behind.
 */
import {
  type EventLoopUtilization,
  type IntervalHistogram,
  monitorEventLoopDelay,
  performance,
} from "node:perf_hooks";

export interface EventLoopSample {
  /** The 99th percentile of how late the loop ran a due timer, in the last window. */
  readonly delayP99Ms: number;
  readonly delayMaxMs: number;
  /** Share of the last window the loop spent running code (0–1). */
  readonly utilization: number;
}

export interface CpuSlotSettings {
  readonly initial: number;
  readonly min: number;
  readonly max: number;
  /** The delay the loop should stay under; more slots only while it stays well under. */
  readonly targetDelayMs: number;
}

/**
 * The next number of CPU slots after a window: a quarter fewer when the loop's delay went past the
 * target, one more when it stayed under half the target while turns waited for a slot, the same
 * otherwise (slots nobody wanted prove nothing).
 */
export function nextCpuSlotLimit(
  current: number,
  window: { sample: EventLoopSample; saturated: boolean },
  settings: CpuSlotSettings,
): number {
  const { sample, saturated } = window;
  let next = current;
  if (sample.delayP99Ms > settings.targetDelayMs) next = Math.floor(current * 0.75);
  else if (saturated && sample.delayP99Ms < settings.targetDelayMs / 2) next = current + 1;
  return Math.min(settings.max, Math.max(settings.min, next));
}

/** Samples the loop every `windowMs` and hands each window's figures to `onWindow`. */
export class EventLoopLoad {
  readonly #windowMs: number;
  readonly #onWindow: (sample: EventLoopSample) => void;
  #histogram: IntervalHistogram | undefined;
  #utilization: EventLoopUtilization | undefined;
  #timer: NodeJS.Timeout | undefined;
  #last: EventLoopSample = { delayP99Ms: 0, delayMaxMs: 0, utilization: 0 };

  constructor(options: { windowMs: number; onWindow: (sample: EventLoopSample) => void }) {
    this.#windowMs = options.windowMs;
    this.#onWindow = options.onWindow;
  }

  /** The last complete window's figures (zeros before the first). */
  get last(): EventLoopSample {
    return this.#last;
  }

  start(): void {
    if (this.#timer) return;
    // 10 ms resolution: finer costs a timer wake-up per millisecond for nothing the target needs.
    this.#histogram = monitorEventLoopDelay({ resolution: 10 });
    this.#histogram.enable();
    this.#utilization = performance.eventLoopUtilization();
    this.#timer = setInterval(() => this.#sample(), this.#windowMs);
    this.#timer.unref?.();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#histogram?.disable();
    this.#histogram = undefined;
  }

  #sample(): void {
    const histogram = this.#histogram;
    if (!histogram) return;
    const utilization = performance.eventLoopUtilization(this.#utilization);
    this.#utilization = performance.eventLoopUtilization();
    // The histogram counts in nanoseconds and includes the sampling resolution itself.
    const delay = (value: number) => Math.max(0, value / 1e6 - 10);
    this.#last = {
      delayP99Ms: histogram.count === 0 ? 0 : delay(histogram.percentile(99)),
      delayMaxMs: histogram.count === 0 ? 0 : delay(histogram.max),
      utilization: utilization.utilization,
    };
    histogram.reset();
    this.#onWindow(this.#last);
  }
}
