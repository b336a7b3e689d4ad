/**
 * Retry around model calls. Two ways in, one policy (retry-policy.ts decides what is retried):
 *
 *   const model = withModelRetry(await createChatModel(spec), modelRetryOptions(spec));
 *   const reply = await model.bindTools(tools).invoke(messages, { signal });   // retried
 *
 *   const reply = await invokeWithRetry(() => bound.invoke(messages, { signal }), { signal });
 *
 * Each attempt can be bounded (`attemptTimeoutMs`): a call that hangs is aborted through the
 * attempt's own signal (the caller's combined with the attempt's timer) and counts as a timed-out
 * attempt, retried like any other within `maxAttempts`. A streamed call can also be bounded until its
 * first token (`firstTokenTimeoutMs`): it calls the `firstToken` callback it is given when text or a
 * tool call starts to arrive, and an attempt that sends nothing for that long is aborted the same way.
 *
 * Waits use exponential backoff with full jitter (a random wait in [0, base·2^(n-1)], capped), so
 * many conversations hitting the same rate limit do not retry in lockstep; a provider's own
 * retry-after hint replaces the backoff, capped at `maxDelayMs`. Cancelling the signal stops at
 * once, during a call or a wait, with the signal's reason. When the attempts run out the caller
 * gets a `ModelUnavailableError`; errors that are not worth retrying (401, 400, bugs) surface
 * unchanged on the first failure.
 */
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { BaseChatModelCallOptions, BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { AIMessageChunk } from "@langchain/core/messages";
import { Runnable } from "@langchain/core/runnables";
import { awayFromCpu } from "../capacity/cpu-slots.ts";
import { ModelCircuitOpenError } from "../capacity/endpoint-circuit.ts";
import { abortableSleep, retryWithBackoff, untilAborted } from "../retry/retry-with-backoff.ts";
import { UserFacingError } from "../runtime/errors.ts";
import { type AttemptClock, runWithAttemptClock } from "./attempt-clock.ts";
import { HeldTimeout } from "./held-timeout.ts";
import {
  causeChain,
  classifyModelError,
  type ModelFailureKind,
  type RetryableFailure,
} from "./retry-policy.ts";

export interface ModelRetryEvent {
  /** The attempt that just failed, from 1. */
  readonly attempt: number;
  readonly kind: ModelFailureKind;
  readonly delayMs: number;
  readonly error: unknown;
}

/** How a caller bounds and retries its model calls, without the test seams. */
export type ModelCallLimits = Pick<
  ModelRetryOptions,
  "maxAttempts" | "attemptTimeoutMs" | "firstTokenTimeoutMs" | "signal"
>;

export interface ModelRetryOptions {
  /** Calls in total, the first included (default 4). */
  maxAttempts?: number;
  /** One attempt is abandoned (and its signal aborted) after this long; none when absent. */
  attemptTimeoutMs?: number;
  /**
   * A streamed attempt that has not reported its first token after this long is abandoned the same
   * way; only for calls that report it (see `invokeWithRetry`'s `firstToken` callback).
   */
  firstTokenTimeoutMs?: number;
  /** Backoff ceiling before the first retry; doubles per attempt (default 1 s). */
  baseDelayMs?: number;
  /** No single wait is longer, retry-after hints included (default 30 s). */
  maxDelayMs?: number;
  signal?: AbortSignal;
  /** Reported before each wait, for the log. */
  onRetry?: (event: ModelRetryEvent) => void;
  /** Waits `ms`; may stop early when `signal` aborts (the wait is abandoned on abort either way). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1). */
  random?: () => number;
  now?: () => number;
}

const USER_REASON: Record<ModelFailureKind, string> = {
  rate_limited: "rate limited",
  timeout: "timed out",
  network: "unreachable",
  server_error: "provider error",
};

/** The model stayed unavailable through every attempt; `userMessage` is safe to show in chat. */
export class ModelUnavailableError extends UserFacingError {
  readonly kind: ModelFailureKind;
  readonly attempts: number;
  /** The endpoint's circuit was open: the last attempt never reached the provider. */
  readonly circuitOpen: boolean;
  constructor(kind: ModelFailureKind, attempts: number, cause: unknown, attemptTimeoutMs?: number) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    const silent = cause instanceof FirstTokenTimeout ? cause.ms : undefined;
    super(unavailableSentence(kind, attempts, attemptTimeoutMs, silent), {
      cause,
      detail: `model call failed after ${attempts} attempt(s) (${kind}): ${detail}`,
    });
    this.name = "ModelUnavailableError";
    this.kind = kind;
    this.attempts = attempts;
    this.circuitOpen = causeChain(cause).some((link) => link instanceof ModelCircuitOpenError);
  }
}

function unavailableSentence(
  kind: ModelFailureKind,
  attempts: number,
  attemptTimeoutMs?: number,
  silentMs?: number,
): string {
  if (kind === "timeout" && silentMs !== undefined) {
    const each = formatSeconds(silentMs);
    const tries = attempts === 1 ? "1 attempt" : `${attempts} attempts`;
    return `The model did not start answering in time (nothing within ${each}, ${tries}). Please try again.`;
  }
  if (kind === "timeout" && attemptTimeoutMs !== undefined) {
    const each = formatSeconds(attemptTimeoutMs);
    const tries = attempts === 1 ? `1 attempt of ${each}` : `${attempts} attempts of ${each}`;
    return `The model did not answer in time (${tries}). Please try again.`;
  }
  return `The model is not answering right now (${USER_REASON[kind]}). Please try again in a minute.`;
}

function formatSeconds(ms: number): string {
  // 60 s, 1.5 s, 0.02 s: no more digits than the value has (up to milliseconds).
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The reason an attempt's signal carries when nothing of a streamed answer came in time. */
export class FirstTokenTimeout extends DOMException {
  readonly ms: number;
  constructor(ms: number) {
    super(`the model sent nothing within ${formatSeconds(ms)}`, "TimeoutError");
    this.ms = ms;
  }
}

/** The reason an attempt's signal carries when its own timer ran out (retried as a timeout). */
export function attemptTimeoutReason(ms: number): DOMException {
  return new DOMException(`the model did not answer within ${formatSeconds(ms)}`, "TimeoutError");
}

export async function invokeWithRetry<T>(
  call: (attempt: number, signal: AbortSignal | undefined, firstToken: () => void) => Promise<T>,
  options: ModelRetryOptions = {},
): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const { signal } = options;
  let attempts = 0;
  /** The latest failure worth another try, as the policy sees it. */
  let failure: RetryableFailure | undefined;
  try {
    return await retryWithBackoff(
      async (attempt) => {
        attempts = attempt;
        signal?.throwIfAborted();
        const bounded = boundAttempt(signal, options.attemptTimeoutMs, options.firstTokenTimeoutMs);
        try {
          const attemptCall = runWithAttemptClock(bounded.clock, () =>
            call(attempt, bounded.signal, bounded.firstToken),
          );
          return await untilAborted(attemptCall, bounded.signal);
        } finally {
          bounded.clear();
        }
      },
      {
        policy: {
          attempts: Math.max(1, options.maxAttempts ?? 4),
          baseDelayMs: options.baseDelayMs ?? 1_000,
          maxDelayMs: options.maxDelayMs ?? 30_000,
        },
        ...(signal ? { signal } : {}),
        retryable: (error) => {
          const circuitOpen = causeChain(error).some((link) => link instanceof ModelCircuitOpenError);
          failure =
            signal?.aborted || circuitOpen
              ? undefined
              : classifyModelError(error, { callerAborted: false, now });
          return failure !== undefined;
        },
        retryAfterMs: () => failure?.retryAfterMs,
        onRetry: (attempt, delayMs, error) => {
          if (failure) options.onRetry?.({ attempt, kind: failure.kind, delayMs, error });
        },
        // Waiting out a backoff, a turn holds no CPU slot.
        sleep: (ms, waitSignal) => awayFromCpu(() => sleep(ms, waitSignal)),
        ...(options.random ? { random: options.random } : {}),
      },
    );
  } catch (error) {
    signal?.throwIfAborted();
    // The endpoint's circuit is open: retrying now would only be refused again (no backoff wait).
    if (causeChain(error).some((link) => link instanceof ModelCircuitOpenError))
      throw new ModelUnavailableError("server_error", attempts, error);
    const last = classifyModelError(error, { callerAborted: false, now });
    if (last === undefined) throw error;
    throw new ModelUnavailableError(last.kind, attempts, error, options.attemptTimeoutMs);
  }
}

/**
 * The signal one attempt runs under: the caller's, plus the attempt's own timers when bounded —
 * the whole attempt, and until its first token (stopped by `firstToken`). The timers stop while the
 * request waits for its endpoint's capacity and start afresh when it is sent (`clock`).
 */
function boundAttempt(
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  firstTokenMs: number | undefined,
): { signal: AbortSignal | undefined; firstToken: () => void; clear: () => void; clock: AttemptClock } {
  // A first-token bound no shorter than the whole attempt's adds nothing but a second timer due at
  // the same moment, and which of the two fires first would decide the sentence the user reads.
  const firstMs =
    timeoutMs !== undefined && firstTokenMs !== undefined && firstTokenMs >= timeoutMs
      ? undefined
      : firstTokenMs;
  if (timeoutMs === undefined && firstMs === undefined)
    return { signal, firstToken: () => undefined, clear: () => undefined, clock: IDLE_CLOCK };
  // Not AbortSignal.timeout: its timer would outlive a quick answer; these are cleared at once.
  const timer = new AbortController();
  let whole: HeldTimeout | undefined;
  let first: HeldTimeout | undefined;
  let tokenSeen = false;
  const stop = () => {
    whole?.clear();
    first?.clear();
    whole = undefined;
    first = undefined;
  };
  const start = () => {
    stop();
    if (timeoutMs !== undefined)
      whole = new HeldTimeout(timeoutMs, () => timer.abort(attemptTimeoutReason(timeoutMs)));
    if (firstMs !== undefined && !tokenSeen)
      first = new HeldTimeout(firstMs, () => timer.abort(new FirstTokenTimeout(firstMs)));
  };
  start();
  const firstToken = () => {
    tokenSeen = true;
    first?.clear();
    first = undefined;
  };
  return {
    signal: signal ? AbortSignal.any([signal, timer.signal]) : timer.signal,
    firstToken,
    clear: stop,
    clock: {
      pause: stop,
      resume: () => (timer.signal.aborted ? undefined : start()),
      hold: () => {
        whole?.hold();
        first?.hold();
      },
      release: () => {
        whole?.release();
        first?.release();
      },
    },
  };
}

const IDLE_CLOCK: AttemptClock = {
  pause: () => undefined,
  resume: () => undefined,
  hold: () => undefined,
  release: () => undefined,
};

type ChatModelCallOptions = BaseChatModelCallOptions;
type ChatRunnable = Runnable<BaseLanguageModelInput, AIMessageChunk, ChatModelCallOptions>;
type RetryableModel = ChatRunnable & {
  bindTools?(tools: BindToolsInput[], kwargs?: Partial<ChatModelCallOptions>): ChatRunnable;
};

/**
 * A chat model (or a model with tools bound) whose `invoke` is retried. `bindTools` returns another
 * retrying model, so the wrapper can be applied once, at start-up. The call's own `signal` (or the
 * one in the options) cancels retries; the call options reach the wrapped model unchanged, so a
 * per-call `timeout` times out each attempt separately.
 */
export class RetryingChatModel extends Runnable<
  BaseLanguageModelInput,
  AIMessageChunk,
  ChatModelCallOptions
> {
  lc_namespace = ["switchboard", "models"];
  readonly inner: RetryableModel;
  readonly retryOptions: ModelRetryOptions;

  constructor(inner: RetryableModel, retryOptions: ModelRetryOptions = {}) {
    super();
    this.inner = inner;
    this.retryOptions = retryOptions;
  }

  override invoke(
    input: BaseLanguageModelInput,
    options?: Partial<ChatModelCallOptions>,
  ): Promise<AIMessageChunk> {
    const signals = [options?.signal, this.retryOptions.signal].filter((signal) => signal !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    return invokeWithRetry(
      (_attempt, attemptSignal) =>
        this.inner.invoke(input, attemptSignal ? { ...options, signal: attemptSignal } : options),
      { ...this.retryOptions, signal },
    );
  }

  bindTools(tools: BindToolsInput[], kwargs?: Partial<ChatModelCallOptions>): RetryingChatModel {
    if (!this.inner.bindTools) {
      throw new TypeError("this model cannot take tools (it has none to bind, or tools are already bound)");
    }
    return new RetryingChatModel(this.inner.bindTools(tools, kwargs), this.retryOptions);
  }
}

export function withModelRetry(model: RetryableModel, options: ModelRetryOptions = {}): RetryingChatModel {
  return new RetryingChatModel(model, options);
}
