import { z } from "zod";

/** The `steps:` section: the run-steps log. */
export const stepsConfigSchema = z.strictObject({
  /** Off: no steps, no usage roll-ups, no limits (metrics and logs still work). */
  enabled: z.boolean().default(true),
  /** Steps and run records are deleted this long after they were written. */
  retentionDays: z.number().int().min(1).max(365).default(14),
});

export type StepsConfig = z.output<typeof stepsConfigSchema>;
