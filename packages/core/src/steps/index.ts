export type {
  CommandStep,
  DeliveryStep,
  HandoffStep,
  MemoryStep,
  ModelCallStep,
  RunIdentity,
  RunStatus as StepRunStatus,
  RunStep,
  RunSummary,
  RunTrigger as StepRunTrigger,
  StepDetail,
  StepKind,
  TokenCounts,
  ToolCallStep,
} from "./run-step.ts";
export { RunStepsLog, type RunStepsLogOptions, type RunStepsReader } from "./run-steps-log.ts";
export {
  newRunId,
  type RunRecording,
  type StepListener,
  StepRecorder,
  type StepRecorderOptions,
  type TeamRunContext,
} from "./step-recorder.ts";
export type { RunSteps, StepSink } from "./step-sink.ts";
export { type StepsConfig, stepsConfigSchema } from "./steps-config.ts";
