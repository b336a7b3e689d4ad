import { z } from "zod";

export const requestsConfigSchema = z.strictObject({
  /** One "still working on it" notice in the thread after this long. */
  noticeAfterSeconds: z.number().positive().default(60),
  /** An open request is closed as timed_out after this long. */
  timeoutSeconds: z.number().positive().default(300),
  /** A request waiting for /approve is closed after this long. */
  approvalTimeoutSeconds: z
    .number()
    .positive()
    .default(24 * 60 * 60),
  /** Closed request records are deleted after this many days. */
  retentionDays: z.number().positive().default(7),
  sweepIntervalSeconds: z.number().positive().default(15),
  /** Longest `message` a run webhook may post (characters); longer ones are refused with 413. */
  webhookMaxMessageChars: z.number().int().positive().default(40_000),
  /** Platform user ids who may approve anyone's waiting actions. */
  admins: z.array(z.string()).default([]),
});

export const httpConfigSchema = z.strictObject({
  host: z.string().default("127.0.0.1"),
  port: z.number().int().min(0).max(65_535).default(8787),
  /** Shared secret for POST /webhooks/runs; without it the endpoint is off. */
  webhookSecret: z.string().min(16, "use at least 16 characters").optional(),
  /**
   * The operator console's token (`/console`). Absent: one is generated on first start, printed,
   * and kept in the store so restarts keep it.
   */
  consoleToken: z.string().min(16, "use at least 16 characters").optional(),
});

export type RequestsConfig = z.output<typeof requestsConfigSchema>;
export type HttpConfig = z.output<typeof httpConfigSchema>;
