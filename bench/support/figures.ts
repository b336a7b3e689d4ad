import { cpus, loadavg } from "node:os";

/** One measured number, with what it is compared against. `value: null` means not measured (pending). */
export interface Figure {
  readonly key: string;
  readonly value: number | null;
  readonly unit: string;
  /** The figure it is compared with, measured in the same run (a key of its own, or a number stated here). */
  readonly baseline?: { readonly label: string; readonly value: number | null };
  /** The goal from the issue, and whether this run meets it (null when it cannot be judged). */
  readonly target?: { readonly text: string; readonly met: boolean | null };
  /** How it was measured when that is not obvious: sample counts, time boxes, what is pending. */
  readonly note?: string;
}

export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly node: string;
  readonly platform: string;
  /** 1-minute load average when the group started: other work on the machine slows every figure. */
  readonly loadAverage: number;
}

export function machine(): Machine {
  const cores = cpus();
  return {
    cpus: cores.length,
    cpuModel: cores[0]?.model.trim() ?? "unknown",
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

/** `value ≤ limit`, judged only when both are measured. */
export function atMost(value: number | null, limit: number | null): boolean | null {
  return value === null || limit === null ? null : value <= limit;
}

export function atLeast(value: number | null, limit: number | null): boolean | null {
  return value === null || limit === null ? null : value >= limit;
}
