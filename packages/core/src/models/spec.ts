/**
 * Which chat model a team runs on, validated once where configuration enters (the CLI) and passed
 * down as a typed `ModelSpec`. Two spellings are accepted:
 *
 * - a string: `offline`, `openai:<model>`, `anthropic:<model>`, `ollama:<model>`
 *   (only the first `:` separates, so `ollama:llama3.1:8b` keeps its tag);
 * - an object: `{ provider, model, baseUrl?, apiKey?, temperature?, maxRetries?, timeoutSeconds?,
 *   firstTokenTimeoutSeconds? }` — the only way to name an OpenAI-compatible server, because it
 *   needs a `baseUrl`.
 *
 * API keys are plain values here: reading the environment is the CLI's job (`apiKeyEnvVar` tells it
 * which variable belongs to which provider).
 */
import { z } from "zod";

export const MODEL_PROVIDERS = ["openai", "anthropic", "ollama", "openai-compatible", "offline"] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

const ACCEPTED_FORMS =
  'accepted: "offline", "openai:<model>", "anthropic:<model>", "ollama:<model>", ' +
  'or { provider: "openai-compatible", baseUrl: "http://host/v1", model: "<model>" }';

/** A model configuration that cannot work as written; the message names the value and the fix. */
export class ModelConfigError extends Error {
  readonly value: string;
  constructor(
    value: string,
    reason: string,
    options?: { withAcceptedForms?: boolean; valueIsJson?: boolean },
  ) {
    const forms = options?.withAcceptedForms === false ? "" : ` (${ACCEPTED_FORMS})`;
    // A mapping is shown as the JSON it is, not quoted a second time.
    const shown = options?.valueIsJson ? value : JSON.stringify(value);
    super(`invalid model ${shown}: ${reason}${forms}`);
    this.name = "ModelConfigError";
    this.value = value;
  }
}

/** When the model stays unavailable through a turn's own retries, the turn is tried again later (retry-later/). */
export const retryLaterSchema = z
  .strictObject({
    attempts: z
      .number()
      .int()
      .min(0)
      .max(20)
      .default(3)
      .describe(
        "Later tries of a turn that ended because the model was unavailable (after its own `maxRetries`); 0 turns this off and the user is asked to try again.",
      ),
    firstDelaySeconds: z
      .number()
      .min(1)
      .max(86_400)
      .default(60)
      .describe(
        "Wait before the first later try; each further try waits twice as long as the one before (60: 1, 2, 4 min). The failure message counts down to it and is replaced by the answer.",
      ),
  })
  .describe(
    "Second-tier retry: a turn the model could not answer is tried again by itself at growing intervals, with a countdown in the thread; `/stop` cancels it and a newer message in the thread supersedes it.",
  );

/** How a turn the model could not answer is tried again later: how often, and after how long first. */
export type RetryLaterSettings = z.infer<typeof retryLaterSchema>;

/** What a process that configures nothing gets: 3 later tries, after 1, 2 and 4 minutes. */
export const DEFAULT_RETRY_LATER: RetryLaterSettings = { attempts: 3, firstDelaySeconds: 60 };

const remoteFields = {
  model: z
    .string()
    .trim()
    .min(1, "model name is empty")
    .describe("The provider's model name (`gpt-4o-mini`, `claude-sonnet-4-5`, `llama3.1:8b`…)."),
  apiKey: z.string().min(1).optional().describe("The provider's API key; better taken from the environment."),
  temperature: z
    .number()
    .min(0)
    .max(2)
    .optional()
    .describe("Sampling temperature; the provider's default when absent."),
  maxRetries: z
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe(
      "Retries after a failed call (rate limit, timeout, network, 5xx), 3 when absent; `0` makes exactly one call. Applies to every call: the team's, memory's and summaries' (summaries try at most twice).",
    ),
  timeoutSeconds: z
    .number()
    .positive()
    .max(3600)
    .optional()
    .describe(
      "How long one model call may take, start to end (120 when absent); a call that hangs is aborted and retried within `maxRetries`.",
    ),
  firstTokenTimeoutSeconds: z
    .number()
    .positive()
    .max(3600)
    .optional()
    .describe(
      "How long a streamed answer may take to start, its first text or tool call (30 when absent, never longer than `timeoutSeconds`); a provider that accepts the request and then sends nothing is given up on after this, and the call retried.",
    ),
  retryLater: retryLaterSchema.optional(),
};

const httpUrl = z
  .url({
    protocol: /^https?$/,
    error: (issue) => (issue.input === undefined ? "baseUrl is required" : "baseUrl must be an http(s) URL"),
  })
  .describe("The API's base URL (e.g. `http://localhost:8000/v1`); required for `openai-compatible`.");

export const modelSpecSchema = z.discriminatedUnion("provider", [
  z.strictObject({
    provider: z
      .literal("offline")
      .describe(
        "Who serves the model; `openai-compatible` is any server speaking OpenAI's API, at `baseUrl`.",
      ),
  }),
  z.strictObject({ provider: z.literal("openai"), ...remoteFields, baseUrl: httpUrl.optional() }),
  z.strictObject({ provider: z.literal("anthropic"), ...remoteFields, baseUrl: httpUrl.optional() }),
  z.strictObject({ provider: z.literal("ollama"), ...remoteFields, baseUrl: httpUrl.optional() }),
  z.strictObject({ provider: z.literal("openai-compatible"), ...remoteFields, baseUrl: httpUrl }),
]);

export type ModelSpec = z.infer<typeof modelSpecSchema>;

/** The providers the object form accepts, as an operator writes them. */
const PROVIDERS = modelSpecSchema.options.map((option) => option.shape.provider.value);

/** Names a provider's model but not the provider: suggest the spelling the user most likely meant. */
function guessProvider(model: string): string | undefined {
  if (/^(gpt-|o\d)/i.test(model)) return "openai";
  if (/^claude/i.test(model)) return "anthropic";
  return undefined;
}

export function parseModelString(text: string): ModelSpec {
  const trimmed = text.trim();
  if (trimmed === "") throw new ModelConfigError(text, "empty");
  const colon = trimmed.indexOf(":");
  const provider = (colon === -1 ? trimmed : trimmed.slice(0, colon)).toLowerCase();
  const model = colon === -1 ? "" : trimmed.slice(colon + 1).trim();

  if (provider === "offline") {
    if (colon !== -1) throw new ModelConfigError(text, '"offline" takes no model name');
    return { provider: "offline" };
  }
  if (provider === "openai-compatible") {
    throw new ModelConfigError(
      text,
      "an OpenAI-compatible server needs a baseUrl, so it must be written as an object",
    );
  }
  if (provider !== "openai" && provider !== "anthropic" && provider !== "ollama") {
    const guess = colon === -1 ? guessProvider(trimmed) : undefined;
    const reason = guess
      ? `no provider given; did you mean "${guess}:${trimmed}"?`
      : `unknown provider "${provider}"`;
    throw new ModelConfigError(text, reason);
  }
  if (model === "") throw new ModelConfigError(text, `no model name after "${provider}:"`);
  return { provider, model };
}

/** Accepts the string or the object form (or nothing, meaning offline) and returns a checked spec. */
export function parseModelSpec(value: unknown): ModelSpec {
  if (value === undefined || value === null) return { provider: "offline" };
  if (typeof value === "string") return parseModelString(value);
  const result = modelSpecSchema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    if (issue.code === "invalid_union" && issue.path.join(".") === "provider") {
      const given = (value as { provider?: unknown }).provider;
      return `${where}expected one of ${PROVIDERS.join(" | ")}, got ${given === undefined ? "nothing" : safeJson(given)}`;
    }
    return `${where}${issue.message}`;
  });
  throw new ModelConfigError(safeJson(value), problems.join("; "), { valueIsJson: true });
}

/** The environment variable the CLI should read for a provider's key; undefined when none is needed. */
export function apiKeyEnvVar(provider: ModelProvider): string | undefined {
  if (provider === "openai") return "OPENAI_API_KEY";
  if (provider === "anthropic") return "ANTHROPIC_API_KEY";
  return undefined;
}

/** Attempts for `withModelRetry`: the first call plus `maxRetries` (default 3, so 4 attempts). */
export function modelRetryOptions(spec: ModelSpec): { maxAttempts: number } {
  const retries = spec.provider === "offline" ? 0 : (spec.maxRetries ?? 3);
  return { maxAttempts: retries + 1 };
}

/** How every model call of a process is bounded and retried (team, memory, summaries). */
export interface ModelCallPolicy {
  /** Calls in total, the first included. */
  readonly maxAttempts: number;
  /** One attempt, start to end. */
  readonly attemptTimeoutMs: number;
  /** A streamed attempt, until its first token (never longer than the whole attempt). */
  readonly firstTokenTimeoutMs: number;
}

/**
 * Defaults well below the turn's wall time (10 minutes): a provider that sends nothing is given up
 * on after 30 s, 4 attempts of that plus backoff end a turn on a hung provider in about 2 minutes
 * with a clear sentence instead of a silent wait; an answer that is being written may take 120 s
 * (a long answer streams for a minute or more).
 */
export const DEFAULT_MODEL_TIMEOUT_SECONDS = 120;
export const DEFAULT_FIRST_TOKEN_TIMEOUT_SECONDS = 30;

/** What a process that configures nothing gets: 4 attempts, each started within 30 s, of at most 120 s. */
export const DEFAULT_MODEL_CALL_POLICY: ModelCallPolicy = {
  maxAttempts: 4,
  attemptTimeoutMs: DEFAULT_MODEL_TIMEOUT_SECONDS * 1000,
  firstTokenTimeoutMs: DEFAULT_FIRST_TOKEN_TIMEOUT_SECONDS * 1000,
};

export function modelCallPolicy(spec: ModelSpec): ModelCallPolicy {
  const remote = spec.provider === "offline" ? undefined : spec;
  const attemptTimeoutMs = (remote?.timeoutSeconds ?? DEFAULT_MODEL_TIMEOUT_SECONDS) * 1000;
  const firstTokenMs = (remote?.firstTokenTimeoutSeconds ?? DEFAULT_FIRST_TOKEN_TIMEOUT_SECONDS) * 1000;
  return {
    ...modelRetryOptions(spec),
    attemptTimeoutMs,
    firstTokenTimeoutMs: Math.min(firstTokenMs, attemptTimeoutMs),
  };
}

/** The later tries of a spec's turns: none for the offline model (it is never unavailable). */
export function retryLaterOf(spec: ModelSpec): RetryLaterSettings {
  if (spec.provider === "offline") return { ...DEFAULT_RETRY_LATER, attempts: 0 };
  return spec.retryLater ?? DEFAULT_RETRY_LATER;
}

/** A JSON rendering for error messages that never carries an API key, even under a misspelt name. */
function safeJson(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (key, field) => (/key|token|secret/i.test(key) ? "***" : field)) ?? String(value)
    );
  } catch {
    return String(value);
  }
}
