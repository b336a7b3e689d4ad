/**
 * The model endpoints of one process and their limits: one `EndpointLimiter` per provider base URL,
 * shared by every chat model built for it (agents' turns, memory, summaries, background tasks), so
 * the process as a whole gets the provider's capacity — not each model object separately.
 */
import { z } from "zod";
import type { AdaptiveLimitSettings } from "../capacity/adaptive-limit.ts";
import { type EndpointCaps, EndpointLimiter, type EndpointState } from "../capacity/endpoint-limiter.ts";
import type { ModelProvider, ModelSpec } from "./spec.ts";

/** Where each provider's SDK sends requests when no baseUrl is configured. */
const DEFAULT_BASE_URLS: Readonly<Record<Exclude<ModelProvider, "offline" | "openai-compatible">, string>> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  ollama: "http://127.0.0.1:11434",
};

const capsSchema = z.strictObject({
  maxConcurrency: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Never more calls in flight to this endpoint than this, however well it answers."),
  requestsPerMinute: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("The provider's published requests-per-minute limit: no more calls start in any 60 s."),
  tokensPerMinute: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      "The provider's published tokens-per-minute limit, counted on each request's prompt (about 4 characters a token) when it starts.",
    ),
});

export const modelEndpointsConfigSchema = z.strictObject({
  initialConcurrency: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(256)
    .describe(
      "Calls in flight per model endpoint before anything is learnt. Deliberately high: a provider that allows fewer answers 429 at once and the limit halves within one round trip, while a low start would make every burst wait for the limit to grow.",
    ),
  minConcurrency: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(1)
    .describe("The adaptive limit never goes below this, however often the provider answers 429."),
  maxConcurrency: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(2_000)
    .describe(
      "The adaptive limit never grows past this: each call in flight is an open connection and a waiting turn.",
    ),
  maxRetryAfterSeconds: z
    .number()
    .int()
    .min(0)
    .max(3_600)
    .default(60)
    .describe(
      "A provider's Retry-After pauses every new call to its endpoint for that long, capped at this (0: never pause).",
    ),
  circuit: z
    .strictObject({
      openAfterFailures: z
        .number()
        .int()
        .min(0)
        .max(1_000)
        .default(5)
        .describe(
          "Provider failures in a row (5xx, 503/529 overload, timeouts, refused or unreachable connections; not 429, nor a connection dropped before its answer, which is retried) after which calls to the endpoint stop for a while: turns then go straight to the later retry instead of waiting out their own retries. 0: never.",
        ),
      halfOpenAfterSeconds: z
        .number()
        .positive()
        .max(3_600)
        .default(30)
        .describe(
          "How long the circuit stays open; then one call is let through, and its answer closes the circuit (its failure opens it again).",
        ),
    })
    .default({ openAfterFailures: 5, halfOpenAfterSeconds: 30 })
    .describe("The endpoint's circuit breaker: a provider that keeps failing is not called by every turn."),
  limits: z
    .record(z.string().min(1), capsSchema)
    .default({})
    .describe(
      'Caps per endpoint, keyed by provider name for its default URL ("openai", "anthropic", "ollama") or by base URL (as in model.baseUrl).',
    ),
});

export type ModelEndpointsConfig = z.infer<typeof modelEndpointsConfigSchema>;

export const DEFAULT_MODEL_ENDPOINTS_CONFIG: ModelEndpointsConfig = modelEndpointsConfigSchema.parse({});

/** The endpoint a spec's calls go to (its base URL, normalised); undefined for the offline model. */
export function endpointOf(spec: ModelSpec): string | undefined {
  if (spec.provider === "offline") return undefined;
  return normaliseUrl(spec.baseUrl ?? DEFAULT_BASE_URLS[spec.provider as keyof typeof DEFAULT_BASE_URLS]);
}

function normaliseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, "")}`;
  } catch {
    return url.replace(/\/+$/, "");
  }
}

function capsKeyToEndpoint(key: string): string {
  const byProvider = DEFAULT_BASE_URLS[key as keyof typeof DEFAULT_BASE_URLS];
  return normaliseUrl(byProvider ?? key);
}

export class ModelEndpoints {
  readonly config: ModelEndpointsConfig;
  readonly #limiters = new Map<string, EndpointLimiter>();
  readonly #caps: ReadonlyMap<string, EndpointCaps>;
  readonly #now: () => number;

  constructor(
    config: ModelEndpointsConfig = DEFAULT_MODEL_ENDPOINTS_CONFIG,
    options: { now?: () => number } = {},
  ) {
    this.config = config;
    this.#now = options.now ?? Date.now;
    this.#caps = new Map(Object.entries(config.limits).map(([key, caps]) => [capsKeyToEndpoint(key), caps]));
  }

  /** The one limiter of `endpoint` in this process (made on first use). */
  limiter(endpoint: string): EndpointLimiter {
    let limiter = this.#limiters.get(endpoint);
    if (!limiter) {
      const { initialConcurrency, minConcurrency, maxConcurrency } = this.config;
      const adaptive: AdaptiveLimitSettings = {
        initial: initialConcurrency,
        min: Math.min(minConcurrency, maxConcurrency),
        max: maxConcurrency,
      };
      const caps = this.#caps.get(endpoint);
      limiter = new EndpointLimiter({
        endpoint,
        adaptive,
        ...(caps ? { caps } : {}),
        maxPauseMs: this.config.maxRetryAfterSeconds * 1000,
        circuit: {
          openAfterFailures: this.config.circuit.openAfterFailures,
          halfOpenAfterMs: this.config.circuit.halfOpenAfterSeconds * 1000,
        },
        now: this.#now,
      });
      this.#limiters.set(endpoint, limiter);
    }
    return limiter;
  }

  /** Every endpoint called so far, for metrics, /health and the recovery loop's report. */
  states(): EndpointState[] {
    return [...this.#limiters.values()].map((limiter) => limiter.state());
  }
}
