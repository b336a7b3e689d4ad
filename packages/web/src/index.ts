export {
  ConversationLog,
  type ConversationSummary,
  type TranscriptFile,
  type TranscriptMessage,
} from "./activity/conversation-log.ts";
export { type LiveEvent, LiveFeed, type LiveTopic } from "./activity/live-feed.ts";
export { recordedAdapter } from "./activity/recorded-adapter.ts";
export {
  createWebAdapter,
  WEB_PLATFORM,
  WebAdapter,
  type WebAdapterConfig,
  WebAdapterNotStartedError,
  type WebChatInput,
  type WebPost,
  webConversation,
} from "./adapter/web-adapter.ts";
export { type WebFileStore, type WebUpload, WebUploadTooLargeError } from "./adapter/web-files.ts";
export {
  type ConsoleTokenResolution,
  MIN_CONSOLE_TOKEN_LENGTH,
  resolveConsoleToken,
  sameSecret,
} from "./auth/console-token.ts";
export { consoleRequestListener, createConsoleApp } from "./console/console-app.ts";
export { type ConsoleDeps, type ConsoleFiles, OPERATOR } from "./console/console-deps.ts";
export type { ScheduleAction, ScheduleSource } from "./console/schedule-source.ts";
export { type HealthReport, type HealthSources, healthReport } from "./health/health-report.ts";
export { PlatformActivity, type PlatformState } from "./health/platform-activity.ts";
export { type LoggedProblem, RecentProblems } from "./health/recent-problems.ts";
export {
  type RunStepView,
  runTimeline,
  type TimelineRun,
  type TimelineStepSource,
} from "./insight/run-timeline.ts";
export { stepsFromLog, stepView } from "./insight/steps-from-log.ts";
export { usageFromBook } from "./insight/usage-from-book.ts";
export { EMPTY_USAGE, type UsageReport, type UsageRow, type UsageSource } from "./insight/usage-report.ts";
