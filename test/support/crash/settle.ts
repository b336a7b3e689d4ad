/**
 * Waiting for a crash test's outcome: until every origin has its complete answer (or the deadline
 * passes), then a little longer, so an answer posted twice after a late recovery is seen too.
 */
import type { WorkspaceState } from "../slack/workspace-state.ts";
import { type AnswerReport, answerReport } from "./answers.ts";
import type { Origin } from "./slack-traffic.ts";

export interface SettleOptions {
  /** Give up waiting for missing answers after this long. */
  readonly deadlineMs: number;
  /**
   * Give up earlier when no answer has completed for this long: a slow machine still makes
   * progress, a lost answer makes none. Unset: only the deadline counts.
   */
  readonly stallMs?: number;
  /** After the last answer arrived, keep watching this long for doubles. */
  readonly quietMs: number;
}

export async function settleAnswers(
  state: WorkspaceState,
  origins: readonly Origin[],
  parts: (token: string) => readonly string[],
  options: SettleOptions,
): Promise<AnswerReport> {
  const deadline = Date.now() + options.deadlineMs;
  let report = answerReport(state, origins, parts);
  let settled = report.complete + report.doubled.length;
  let lastProgressAt = Date.now();
  const stalled = () => options.stallMs !== undefined && Date.now() - lastProgressAt > options.stallMs;
  while (settled < origins.length && Date.now() < deadline && !stalled()) {
    await pause(100);
    report = answerReport(state, origins, parts);
    const now = report.complete + report.doubled.length;
    if (now > settled) lastProgressAt = Date.now();
    settled = now;
  }
  await pause(options.quietMs);
  return answerReport(state, origins, parts);
}

/** A one-line summary for assertion messages. */
export function describeReport(report: AnswerReport, total: number): string {
  const sample = (list: readonly string[]) => list.slice(0, 5).join(" | ");
  return [
    `${report.complete}/${total} complete`,
    `${report.lost.length} lost${report.lost.length ? ` (${sample(report.lost)})` : ""}`,
    `${report.doubled.length} doubled${report.doubled.length ? ` (${sample(report.doubled)})` : ""}`,
    `${report.incomplete.length} incomplete${report.incomplete.length ? ` (${sample(report.incomplete)})` : ""}`,
    `${report.strays.length} stray posts${report.strays.length ? ` (${sample(report.strays)})` : ""}`,
  ].join("; ");
}

/** The report a passing crash test has: every origin complete, nothing lost, doubled or stray. */
export function exactlyOnce(total: number): string {
  return describeReport({ lost: [], doubled: [], incomplete: [], strays: [], complete: total }, total);
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
