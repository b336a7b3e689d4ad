import type { SwitchboardConfig } from "../config/schema.ts";

/**
 * The sections a running process takes on without a restart (each has its own way of applying:
 * the team's prompts and limits in place, the access gate, the declared schedules). `team` is live
 * only in part: which agents there are, their models and tools need a restart (Team.reconfigure).
 */
export const LIVE_SECTIONS = ["team", "limits", "access", "schedules"] as const;

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Top-level sections (and `schedules` settings other than `declared`) that differ and need a restart. */
export function sectionsNeedingRestart(next: SwitchboardConfig, current: SwitchboardConfig): string[] {
  const live = new Set<string>(LIVE_SECTIONS);
  const now = current as unknown as Record<string, unknown>;
  const changed = Object.entries(next as unknown as Record<string, unknown>)
    .filter(([key, value]) => !live.has(key) && !same(value, now[key]))
    .map(([key]) => key);
  const { declared: _next, ...nextSchedules } = next.schedules;
  const { declared: _now, ...nowSchedules } = current.schedules;
  if (!same(nextSchedules, nowSchedules)) changed.push("schedules (other than declared)");
  return changed;
}

export function differs(a: unknown, b: unknown): boolean {
  return !same(a, b);
}
