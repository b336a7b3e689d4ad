import type {
  ContinuationHandler,
  ContinuationWork,
  Responder,
  Turn,
  TurnAnswer,
} from "../engine/responder.ts";
import { UserFacingError } from "../runtime/errors.ts";
import type { Logger } from "../runtime/logger.ts";
import type { UsageLimits } from "./usage-limits.ts";

/** A turn refused by a usage cap: the user reads `userMessage`; no model runs. */
export class UsageLimitError extends UserFacingError {
  readonly scope: "user" | "conversation";
  constructor(sentence: string, scope: "user" | "conversation") {
    super(sentence, { detail: `usage limit reached (${scope})` });
    this.name = "UsageLimitError";
    this.scope = scope;
  }
}

/**
 * The responder behind the daily caps: a turn over a cap is refused before anything runs, with
 * one sentence for the user. Follow-ups of a request already under way (continuations) still run.
 */
export class LimitedResponder implements Responder, ContinuationHandler {
  readonly #inner: Responder & Partial<ContinuationHandler>;
  readonly #limits: UsageLimits;
  readonly #logger: Logger;
  readonly #onRefused: ((scope: "user" | "conversation") => void) | undefined;

  constructor(options: {
    inner: Responder & Partial<ContinuationHandler>;
    limits: UsageLimits;
    logger: Logger;
    onRefused?: (scope: "user" | "conversation") => void;
  }) {
    this.#inner = options.inner;
    this.#limits = options.limits;
    this.#logger = options.logger;
    this.#onRefused = options.onRefused;
  }

  async respond(turn: Turn): Promise<TurnAnswer> {
    const refusal = this.#limits.active
      ? await this.#limits.refusal(turn.message.author.id, turn.key)
      : undefined;
    if (refusal) {
      this.#logger.info("turn refused: usage limit", { key: turn.key, scope: refusal.scope });
      this.#onRefused?.(refusal.scope);
      throw new UsageLimitError(refusal.sentence, refusal.scope);
    }
    return this.#inner.respond(turn);
  }

  async continue(work: ContinuationWork): Promise<void> {
    if (!this.#inner.continue) throw new Error("the wrapped responder does not handle continuations");
    await this.#inner.continue(work);
  }
}
