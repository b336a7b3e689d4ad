import type { FireEntry, ScheduleRecord } from "@switchboard/core/records";

/** What the page's buttons do to a schedule. */
export type ScheduleAction = "pause" | "resume" | "cancel";

/** What the Schedules page reads and may do (as an admin). */
export interface ScheduleSource {
  /** The newest kept schedules, newest first. */
  newest(limit: number): Promise<readonly ScheduleRecord[]>;
  /** A schedule's newest fires, newest first. */
  fires(id: string, limit: number): Promise<readonly FireEntry[]>;
  /** Pauses, resumes or cancels as an admin; resolves with the sentence saying what happened. */
  control(id: string, action: ScheduleAction, by: string): Promise<string>;
}
