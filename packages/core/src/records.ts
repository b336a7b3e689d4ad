/**
 * @switchboard/core/records: reading (and acting on) what Switchboard keeps — request records and
 * their runs, the run-steps log, usage roll-ups, memory, active agents — for consoles, reports and
 * operator tools. The operator console (@switchboard/web) is its user.
 */

export type { Handoff } from "./humans/human-handoffs.ts";
export type { ArchiveStore } from "./memory/archive/archive-store.ts";
export { MemoryBook } from "./memory/memory-book.ts";
export { NotAwaitingApprovalError } from "./runs/approval-decision.ts";
export type { RequestRecord, RunRecord } from "./runs/request-record.ts";
export { type NewRun, RequestTracker, UnknownRequestError } from "./runs/request-tracker.ts";
export {
  type FireEntry,
  type FireOutcome,
  SCHEDULE_STATUSES,
  type ScheduleRecord,
  type ScheduleStatus,
} from "./schedules/schedule-record.ts";
export { ScheduleStore } from "./schedules/schedule-store.ts";
export { describeTiming, formatInZone, type Timing } from "./schedules/schedule-time.ts";
export type { RunStep } from "./steps/run-step.ts";
export { RunStepsLog, type RunStepsReader } from "./steps/run-steps-log.ts";
export type { AtomicStore } from "./store/types.ts";
export { TASK_STATUSES, type TaskRecord, type TaskStatus } from "./tasks/task-record.ts";
export type { TaskStepEntry } from "./tasks/task-store.ts";
export { ActiveAgentStore } from "./team/active-agents.ts";
export type { AgentSummary } from "./team/team-commands.ts";
export { UsageBook, type UsageDimension, type UsageRow } from "./usage/usage-book.ts";
