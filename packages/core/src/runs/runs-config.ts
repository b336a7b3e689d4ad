import { z } from "zod";

export const requestsConfigSchema = z.strictObject({
  noticeAfterSeconds: z
    .number()
    .positive()
    .default(60)
    .describe('One "still working on it" notice in the thread after this long.'),
  timeoutSeconds: z
    .number()
    .positive()
    .default(300)
    .describe("An open request is closed as timed_out after this long."),
  approvalTimeoutSeconds: z
    .number()
    .positive()
    .default(24 * 60 * 60)
    .describe("A request waiting for /approve is closed after this long."),
  retentionDays: z
    .number()
    .positive()
    .default(7)
    .describe("Closed request records are deleted after this many days."),
  sweepIntervalSeconds: z
    .number()
    .positive()
    .default(15)
    .describe("How often notices, time-outs and the retention of closed requests are checked."),
  webhookMaxMessageChars: z
    .number()
    .int()
    .positive()
    .default(40_000)
    .describe("Longest `message` a run webhook may post (characters); longer ones are refused with 413."),
  admins: z
    .array(z.string())
    .default([])
    .describe("Platform user ids who may approve anyone's waiting actions."),
});

export const httpConfigSchema = z.strictObject({
  host: z
    .string()
    .default("127.0.0.1")
    .describe("Interface the HTTP server listens on; the default is reachable from this machine only."),
  port: z
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(8787)
    .describe("Port of the HTTP server; `0` picks a free one."),
  webhookSecret: z
    .string()
    .min(16, "use at least 16 characters")
    .optional()
    .describe("Shared secret for POST /webhooks/runs; without it the endpoint is off."),
  consoleToken: z
    .string()
    .min(16, "use at least 16 characters")
    .optional()
    .describe(
      "The operator console's token (`/console`). Absent: one is generated on first start, printed, and kept in the store so restarts keep it.",
    ),
});

export type RequestsConfig = z.output<typeof requestsConfigSchema>;
export type HttpConfig = z.output<typeof httpConfigSchema>;
