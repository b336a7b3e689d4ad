import { randomBytes } from "node:crypto";
import { parseCommand } from "../commands/command.ts";
import type { CommandRegistry } from "../commands/registry.ts";
import type { InboundMessage } from "../conversation/messages.ts";
import { decodeConversationKey } from "../conversation/ref.ts";
import type { Deliverer } from "../delivery/deliverer.ts";
import { TurnCancelledError, userMessageOf } from "../runtime/errors.ts";
import type { Logger } from "../runtime/logger.ts";
import { decodeWork, groupWork } from "./queued-work.ts";
import type { Continuation, ContinuationHandler, Responder, Turn, TurnObserver } from "./responder.ts";

export interface TurnProcessorOptions {
  readonly deliverer: Deliverer;
  readonly commands: CommandRegistry;
  readonly responder: Responder;
  readonly observers: readonly TurnObserver[];
  readonly continuations?: ContinuationHandler;
  readonly prefixes: readonly string[];
  readonly logger: Logger;
}

const SHUTDOWN_REASON = "shutting down";

/** Command → route/run → deliver for one unit of queued work, with errors turned into one clear sentence. */
export class TurnProcessor {
  readonly #options: TurnProcessorOptions;

  constructor(options: TurnProcessorOptions) {
    this.#options = options;
  }

  async process(key: string, items: string[], signal: AbortSignal): Promise<void> {
    for (const group of groupWork(items.map(decodeWork))) {
      if (group.kind === "messages") await this.#processMessages(key, group.messages, signal);
      else if (group.kind === "continuation") await this.#continue(key, group.continuation, signal);
    }
  }

  async #continue(key: string, continuation: Continuation, signal: AbortSignal): Promise<void> {
    const handler = this.#options.continuations;
    if (!handler) {
      this.#options.logger.error("queued continuation dropped: nothing handles continuations", {
        key,
        type: continuation.type,
      });
      return;
    }
    const conversation = decodeConversationKey(key);
    try {
      await this.#options.deliverer.whileTyping(
        conversation,
        () => handler.continue(key, continuation, signal),
        (error) => this.#options.logger.warn("typing indicator failed", { key, error }),
      );
    } catch (error) {
      if (signal.aborted && abortReason(signal) === SHUTDOWN_REASON)
        throw new TurnCancelledError(SHUTDOWN_REASON);
      this.#options.logger.error("continuation failed", {
        key,
        type: continuation.type,
        requestId: continuation.requestId,
        error,
      });
    }
  }

  async #processMessages(key: string, messages: InboundMessage[], signal: AbortSignal): Promise<void> {
    const message = messages.at(-1);
    if (!message) return;
    const text = messages.map((m) => m.text).join("\n\n");
    const turn: Turn = { key, conversation: message.conversation, message, text, signal };
    const { deliverer, logger } = this.#options;
    try {
      await deliverer.whileTyping(
        turn.conversation,
        () => this.#answer(turn),
        (error) => logger.warn("typing indicator failed", { key, error }),
      );
    } catch (error) {
      if (signal.aborted && abortReason(signal) === SHUTDOWN_REASON) {
        // Left in the queue: the next start answers it.
        throw new TurnCancelledError(SHUTDOWN_REASON);
      }
      await this.#report(turn, error);
    }
  }

  async #answer(turn: Turn): Promise<void> {
    const { commands, responder, observers, prefixes, logger } = this.#options;
    let text = turn.text;
    const parsed = parseCommand(text, prefixes);
    const command = parsed ? commands.get(parsed.name) : undefined;
    if (parsed && command) {
      const result = await command.run({
        key: turn.key,
        conversation: turn.conversation,
        message: turn.message,
        args: parsed.args,
      });
      if (result.reply) await this.#deliver(turn, result.reply);
      if (result.thenAnswer === undefined || result.thenAnswer.trim() === "") return;
      text = result.thenAnswer;
    }
    const answer = await responder.respond({ ...turn, text });
    turn.signal.throwIfAborted();
    if (answer.text.trim() !== "") await this.#deliver(turn, answer.text, answer.agent);
    logger.info("turn answered", { key: turn.key, agent: answer.agent, chars: answer.text.length });
    for (const observer of observers) {
      try {
        observer.afterDelivery?.({ ...turn, text }, answer);
      } catch (error) {
        logger.error("turn observer failed", { key: turn.key, error });
      }
    }
  }

  async #deliver(turn: Turn, text: string, agent?: string): Promise<void> {
    await this.#options.deliverer.deliver({
      conversation: turn.conversation,
      text,
      replyTo: turn.message.id,
      recipientId: turn.message.author.id,
      ...(agent === undefined ? {} : { agent }),
    });
  }

  /** The user gets one short sentence in the thread; the log gets the detail under the same reference. */
  async #report(turn: Turn, error: unknown): Promise<void> {
    const { logger } = this.#options;
    if (turn.signal.aborted) {
      logger.info("turn cancelled", { key: turn.key, reason: abortReason(turn.signal) });
      return;
    }
    const reference = randomBytes(3).toString("hex");
    const known = userMessageOf(error);
    logger.error("turn failed", { key: turn.key, reference, error });
    const sentence = known ?? `Sorry, something went wrong while answering (reference ${reference}).`;
    try {
      await this.#deliver(turn, sentence);
    } catch (deliveryError) {
      logger.error("could not tell the user about a failed turn", {
        key: turn.key,
        reference,
        error: deliveryError,
      });
    }
  }
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : String(reason);
}
