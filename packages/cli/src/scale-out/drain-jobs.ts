/**
 * The one kind of job the cluster passes around: "drain conversation K". The job carries no
 * message: the durable per-conversation queue holds the work, in order, and the job only says
 * that someone should drain it. The job id is derived from the key, so a conversation waiting to
 * be drained is queued once, however many messages arrive meanwhile.
 */
import type { JobsOptions } from "bullmq";

export const DRAIN_QUEUE = "conversations";
export const DRAIN_JOB = "drain";

export interface DrainJobData {
  readonly key: string;
}

/** BullMQ job ids may not contain `:` (every conversation key does); the encoding is reversible. */
export function drainJobId(key: string): string {
  return `drain-${encodeURIComponent(key)}`;
}

export function keyOfDrainJobId(jobId: string): string | undefined {
  return jobId.startsWith("drain-") ? decodeURIComponent(jobId.slice("drain-".length)) : undefined;
}

export const DRAIN_JOB_OPTIONS: JobsOptions = {
  // The id must be free again once a drain ended (or gave up): only then can the next one queue.
  removeOnComplete: true,
  removeOnFail: true,
  // Failures are infrastructure failures (a turn's own errors are answered in chat): retried with
  // backoff; after the last attempt the recovery sweep schedules the conversation again.
  attempts: 8,
  backoff: { type: "exponential", delay: 1_000 },
};
