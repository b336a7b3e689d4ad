import { z } from "zod";

const priceSchema = z.strictObject({
  /** USD per million input tokens. */
  input: z.number().min(0),
  /** USD per million output tokens. */
  output: z.number().min(0),
  /** USD per million cached input tokens (defaults to `input`). */
  cachedInput: z.number().min(0).optional(),
});

const limitSchema = z.strictObject({
  /** Input + output tokens. */
  tokens: z.number().int().positive().optional(),
  /** USD, from the price table. */
  costUsd: z.number().positive().optional(),
});

/**
 * The `usage:` section. Validated once at the edge (the CLI); everything below receives the parsed
 * `UsageConfig`.
 */
export const usageConfigSchema = z.strictObject({
  /** Per-model prices (USD per million tokens), merged over the built-in table. */
  prices: z.record(z.string().min(1), priceSchema).default({}),
  /** Day totals are kept this long. */
  retentionDays: z.number().int().min(1).max(3650).default(90),
  /** Caps per UTC day; over one, the user gets one sentence and no model runs. */
  limits: z
    .strictObject({
      perUserPerDay: limitSchema.optional(),
      perConversationPerDay: limitSchema.optional(),
    })
    .default({}),
  /** Platform user ids who may ask `/usage all` (the whole workspace's day). */
  admins: z.array(z.string().min(1)).default([]),
});

export type UsageConfig = z.output<typeof usageConfigSchema>;
export type UsageConfigInput = z.input<typeof usageConfigSchema>;
export type UsageLimit = z.output<typeof limitSchema>;

export const DEFAULT_USAGE_CONFIG: UsageConfig = usageConfigSchema.parse({});
