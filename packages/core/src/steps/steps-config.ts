import { z } from "zod";

/** The `steps:` section: the run-steps log. */
export const stepsConfigSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe("Off: no steps, no usage roll-ups, no limits (metrics and logs still work)."),
  retentionDays: z
    .number()
    .int()
    .min(1)
    .max(365)
    .default(14)
    .describe("Steps and run records are deleted this long after they were written."),
});

export type StepsConfig = z.output<typeof stepsConfigSchema>;
