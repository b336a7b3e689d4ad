import { z } from "zod";

const priceSchema = z.strictObject({
  input: z.number().min(0).describe("USD per million input tokens."),
  output: z.number().min(0).describe("USD per million output tokens."),
  cachedInput: z
    .number()
    .min(0)
    .optional()
    .describe("USD per million cached input tokens (defaults to `input`)."),
});

const limitSchema = z.strictObject({
  tokens: z.number().int().positive().optional().describe("Input + output tokens."),
  costUsd: z
    .number()
    .positive()
    .optional()
    .describe(
      "USD, from the price table. Calls to a model with no price count nothing here (pair it with `tokens`, or price the model).",
    ),
});

/**
 * The `usage:` section. Validated once at the edge (the CLI); everything below receives the parsed
 * `UsageConfig`.
 */
export const usageConfigSchema = z.strictObject({
  prices: z
    .record(z.string().min(1), priceSchema)
    .default({})
    .describe(
      "Per-model prices (USD per million tokens) over the built-in list: an exact model id (`claude-opus-4-5`; its dated snapshots follow it), or a prefix ending in `*` (`my-family-*`). Exact ids win over prefixes. A model priced nowhere is shown as unknown and never counts toward a `costUsd` cap.",
    ),
  retentionDays: z.number().int().min(1).max(3650).default(90).describe("Day totals are kept this long."),
  limits: z
    .strictObject({
      perUserPerDay: limitSchema.optional().describe("What one user may use per UTC day."),
      perConversationPerDay: limitSchema.optional().describe("What one conversation may use per UTC day."),
    })
    .default({})
    .describe("Caps per UTC day; over one, the user gets one sentence and no model runs."),
  admins: z
    .array(z.string().min(1))
    .default([])
    .describe("Platform user ids who may ask `/usage all` (the whole workspace's day)."),
});

export type UsageConfig = z.output<typeof usageConfigSchema>;
export type UsageConfigInput = z.input<typeof usageConfigSchema>;
export type UsageLimit = z.output<typeof limitSchema>;

export const DEFAULT_USAGE_CONFIG: UsageConfig = usageConfigSchema.parse({});
