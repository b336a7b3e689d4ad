import type {
  ContinuationHandler,
  ContinuationWork,
  Responder,
  Turn,
  TurnAnswer,
} from "../engine/responder.ts";
import type { SwitchboardMetrics } from "../metrics/switchboard-metrics.ts";
import { withLogContext } from "../runtime/log-context.ts";

/**
 * The responder as the engine sees it, observed: every log line of the turn carries its
 * conversation key, and the turn is timed for the metrics.
 */
export class ObservedResponder implements Responder, ContinuationHandler {
  readonly #inner: Responder & Partial<ContinuationHandler>;
  readonly #metrics: SwitchboardMetrics | undefined;

  constructor(inner: Responder & Partial<ContinuationHandler>, metrics: SwitchboardMetrics | undefined) {
    this.#inner = inner;
    this.#metrics = metrics;
  }

  respond(turn: Turn): Promise<TurnAnswer> {
    return withLogContext({ conversationKey: turn.key, messageId: turn.message.id }, () =>
      this.#metrics ? this.#metrics.timeTurn(() => this.#inner.respond(turn)) : this.#inner.respond(turn),
    );
  }

  continue(work: ContinuationWork): Promise<void> {
    const inner = this.#inner;
    if (!inner.continue)
      return Promise.reject(new Error("the wrapped responder does not handle continuations"));
    return withLogContext(
      { conversationKey: work.key, requestId: work.continuation.requestId },
      () => inner.continue?.(work) ?? Promise.resolve(),
    );
  }
}
