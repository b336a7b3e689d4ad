export { NotAwaitingApprovalError } from "./approval-decision.ts";
export { ApprovalGate } from "./approval-gate.ts";
export { CONTINUATION, type RunScheduler } from "./continuations.ts";
export { type HttpServerOptions, startHttpServer } from "./http-server.ts";
export type { RequestTimeouts } from "./request-due.ts";
export {
  type RecordedDecision,
  type RequestRecord,
  type RequestStatus,
  type RunRecord,
  type RunTrigger,
  replyTargetOf,
} from "./request-record.ts";
export { RequestSweeper, type RequestSweepReport } from "./request-sweeper.ts";
export { RequestTracker, UnknownRequestError } from "./request-tracker.ts";
export { RequestTracking } from "./request-tracking.ts";
export {
  type HttpConfig,
  httpConfigSchema,
  type RequestsConfig,
  requestsConfigSchema,
} from "./runs-config.ts";
export { type InitiatedAnswer, type InitiatedRun, TrackedTeam } from "./tracked-team.ts";
export { type WebhookEvent, WebhookReceiver, webhookEventSchema } from "./webhook-receiver.ts";
export { signWebhook, verifyWebhookSignature, WEBHOOK_MAX_AGE_SECONDS } from "./webhook-signature.ts";
