import { randomBytes } from "node:crypto";
import type { PreparedAttachments } from "../attachments/stored-attachment.ts";
import { awayFromCpu } from "../capacity/cpu-slots.ts";
import { parseCommand } from "../commands/command.ts";
import type { CommandRegistry } from "../commands/registry.ts";
import type { InboundMessage, PostedMessage } from "../conversation/messages.ts";
import { decodeConversationKey } from "../conversation/ref.ts";
import type { Deliverer, Delivery } from "../delivery/deliverer.ts";
import type { Outbox } from "../outbox/outbox.ts";
import type { WorkOutbox } from "../outbox/work-outbox.ts";
import {
  abortedByShutdown,
  abortedByTimeLimit,
  SHUTDOWN_REASON,
  TurnCancelledError,
  userMessageOf,
} from "../runtime/errors.ts";
import type { Logger } from "../runtime/logger.ts";
import { isStoreOutage } from "../store/errors.ts";
import type { StreamingReply } from "../streaming/streaming-reply.ts";
import type { LaterRetries } from "./later-retries.ts";
import { decodeWork, groupWork, type WorkUnit } from "./queued-work.ts";
import type {
  Continuation,
  ContinuationHandler,
  InterimMessages,
  Responder,
  Turn,
  TurnObserver,
} from "./responder.ts";

export interface TurnProcessorOptions {
  readonly deliverer: Deliverer;
  readonly outbox: Outbox;
  readonly commands: CommandRegistry;
  readonly responder: Responder;
  readonly observers: readonly TurnObserver[];
  readonly continuations?: ContinuationHandler;
  readonly prefixes: readonly string[];
  /** The prefix help texts name on a platform (see `Adapter.commandPrefix`). */
  readonly prefixFor: (platform: string) => string;
  readonly logger: Logger;
  /** Reads the files of a turn's messages (downloads, text, transcripts); absent: files are ignored. */
  readonly readAttachments?: ReadAttachments;
  /** Turns the model could not answer are tried again later (retry-later/); absent: the user is told to retry. */
  readonly laterRetries?: LaterRetries;
}

/** See `TurnProcessorOptions.readAttachments`. */
export type ReadAttachments = (
  messages: readonly InboundMessage[],
  context: { readonly key: string; readonly signal: AbortSignal },
) => Promise<PreparedAttachments | undefined>;

/** Command → route/run → deliver for one unit of queued work, with errors turned into one clear sentence. */
export class TurnProcessor {
  readonly #options: TurnProcessorOptions;

  constructor(options: TurnProcessorOptions) {
    this.#options = options;
  }

  async process(key: string, items: string[], signal: AbortSignal): Promise<void> {
    for (const unit of groupWork(items.map(decodeWork))) {
      const outbox = await this.#options.outbox.open(unit.workId, signal);
      if (outbox.answered) {
        // An earlier attempt computed the answer and died before finishing: deliver what is left.
        this.#options.logger.info("delivering an answer recorded before a restart", {
          key,
          workId: unit.workId,
        });
        await this.#deliverRecorded(outbox, signal);
      } else await this.#processUnit(key, unit, outbox, signal);
    }
  }

  /**
   * What is left of a recorded answer, posted (after a restart, or after the time limit cut the
   * turn that recorded it). Cut by the time limit here (a platform that never answers), it is
   * given up — logged, listed by `/status` — rather than left to be tried again: the
   * conversation's next messages must not wait behind it for ever.
   */
  async #deliverRecorded(outbox: WorkOutbox, signal: AbortSignal): Promise<void> {
    try {
      await outbox.deliverRecorded();
    } catch (error) {
      if (abortedByShutdown(signal)) throw new TurnCancelledError(SHUTDOWN_REASON);
      if (!abortedByTimeLimit(signal)) throw error;
      await outbox.giveUpUndelivered(RECORDED_ANSWER_TIMED_OUT);
      // This signal is spent: the next try finds the answer given up and goes on with the queue.
      throw new TurnCancelledError(RECORDED_ANSWER_GIVEN_UP);
    }
  }

  async #processUnit(key: string, unit: WorkUnit, outbox: WorkOutbox, signal: AbortSignal): Promise<void> {
    if (unit.kind === "messages") await this.#processMessages(key, unit.messages, outbox, signal);
    else await this.#continue(key, unit.continuation, outbox, signal);
  }

  /**
   * Shutdown leaves the work queued (the next start finishes it), and so does the time limit once
   * the answer is recorded: the limit is for a turn still working, and a computed answer waiting on
   * the platform is delivered by the next try, not thrown away. Other failures are the caller's.
   */
  async #cancellable(signal: AbortSignal, work: () => Promise<void>, outbox: WorkOutbox): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (abortedByShutdown(signal)) throw new TurnCancelledError(SHUTDOWN_REASON);
      if (outbox.answered && abortedByTimeLimit(signal)) throw new TurnCancelledError(RECORDED_ANSWER_LEFT);
      throw error;
    }
  }

  async #continue(
    key: string,
    continuation: Continuation,
    outbox: WorkOutbox,
    signal: AbortSignal,
  ): Promise<void> {
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
      await this.#cancellable(
        signal,
        () =>
          this.#options.deliverer.whileTyping(
            conversation,
            () =>
              handler.continue({
                key,
                continuation,
                signal,
                workId: outbox.workId,
                deliver: (delivery) => outbox.deliver(delivery, { answer: true }),
                // Into the thread; the answer that follows replies to the request's first message.
                interim: this.#interim(outbox, (text, agent) => ({
                  conversation,
                  text,
                  ...(agent === undefined ? {} : { agent }),
                })),
                commandPrefix: this.#options.prefixFor(conversation.platform),
              }),
            (error) => this.#options.logger.warn("typing indicator failed", { key, error }),
          ),
        outbox,
      );
    } catch (error) {
      if (error instanceof TurnCancelledError || isStoreOutage(error)) throw error;
      this.#options.logger.error("continuation failed", {
        key,
        type: continuation.type,
        requestId: continuation.requestId,
        error,
      });
    }
  }

  async #processMessages(
    key: string,
    messages: InboundMessage[],
    outbox: WorkOutbox,
    signal: AbortSignal,
  ): Promise<void> {
    const message = messages.at(-1);
    if (!message) return;
    const text = messages.map((m) => m.text).join("\n\n");
    const turn: Turn = {
      key,
      conversation: message.conversation,
      message,
      text,
      signal,
      workId: outbox.workId,
      commandPrefix: this.#options.prefixFor(message.conversation.platform),
    };
    const { deliverer, logger } = this.#options;
    const live: LiveAnswer = {};
    try {
      await this.#cancellable(
        signal,
        () =>
          deliverer.whileTyping(
            turn.conversation,
            () => this.#answer(turn, outbox, live, messages),
            (error) => logger.warn("typing indicator failed", { key, error }),
          ),
        outbox,
      );
    } catch (error) {
      // Left in the queue: the next start answers it, in the messages streamed so far.
      // A store or checkpointer that is down or full is not the turn's failure: the work stays
      // queued and runs again, from the last checkpoint, once it is back. So is a Redis command
      // that was on the wire when the server went away (the turn must not apologise for it).
      if (error instanceof TurnCancelledError || isStoreOutage(error)) {
        await live.stream?.abandon();
        throw error;
      }
      await this.#report(turn, outbox, error, live.stream, messages);
    }
  }

  async #answer(
    turn: Turn,
    outbox: WorkOutbox,
    live: LiveAnswer,
    messages: readonly InboundMessage[] = [turn.message],
  ): Promise<void> {
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
        prefix: this.#options.prefixFor(turn.conversation.platform),
      });
      const answered = result.thenAnswer === undefined || result.thenAnswer.trim() === "";
      if (result.reply) await outbox.deliver(this.#delivery(turn, result.reply), { answer: answered });
      if (answered) return;
      text = result.thenAnswer ?? "";
    }
    // A newer message answered while an older one waits for its later retry: the older is not answered too.
    if (!parsed) await this.#supersedeWaiting(turn);
    const attachments = parsed ? undefined : await this.#options.readAttachments?.(messages, turn);
    live.stream = await this.#openStream(turn);
    const answer = await responder.respond({
      ...turn,
      text,
      ...(attachments ? { attachments } : {}),
      interim: this.#interim(outbox, (text, agent) => this.#delivery(turn, text, agent), {
        live,
        open: () => this.#openStream(turn),
      }),
      // Forwarded to whichever stream is open: an interim message closes one and opens the next.
      ...(live.stream ? { onEvent: (event) => live.stream?.accept(event) } : {}),
    });
    turn.signal.throwIfAborted();
    // The outbox holds the final text; what was streamed is replaced by it, chunk by chunk. Closing
    // waits for the preview's last edits and the platform's pace between calls: a wait outside
    // this process, so without a CPU slot.
    const stream = live.stream;
    const placeholders = stream ? await awayFromCpu(() => stream.close()) : [];
    // What the sender must know about their files (a limit, a refused download) ends the answer.
    // The answer is posted exactly as written (what was streamed must end the same).
    const notices = (attachments?.notices ?? []).map((notice) => `_${notice}_`);
    const finalText =
      notices.length === 0
        ? answer.text
        : [answer.text.trim(), ...notices].filter((part) => part !== "").join("\n\n");
    if (finalText.trim() !== "" || (answer.files?.length ?? 0) > 0)
      await outbox.deliver(
        {
          ...this.#delivery(turn, finalText, answer.agent),
          ...withPlaceholders(placeholders),
          ...(answer.approval ? { approval: answer.approval } : {}),
          ...(answer.files?.length ? { files: answer.files } : {}),
        },
        { answer: true },
      );
    await live.stream?.forget();
    if (answer.text.trim() === "" && !answer.silent)
      logger.warn("the team's answer was empty: nothing was posted", { key: turn.key, agent: answer.agent });
    // Debug: the "run finished" line (observability/log-listener.ts) tells an operator the same at info.
    logger.debug("turn answered", { key: turn.key, agent: answer.agent, chars: answer.text.length });
    // Memory records what each file was (name, type, first words), so search finds it later.
    const remembered = attachments
      ? [text, ...attachments.summary].filter((line) => line !== "").join("\n")
      : text;
    for (const observer of observers) {
      try {
        observer.afterDelivery?.({ ...turn, text: remembered }, answer);
      } catch (error) {
        logger.error("turn observer failed", { key: turn.key, error });
      }
    }
  }

  /**
   * `send_message` for one unit of work. An open preview becomes the interim message (its messages
   * are replaced by the text), and the answer streams into a new message below it, so the thread
   * reads in the order things were said.
   */
  #interim(
    outbox: WorkOutbox,
    deliveryOf: (text: string, agent: string | undefined) => Delivery,
    streaming?: { live: LiveAnswer; open: () => Promise<StreamingReply | undefined> },
  ): InterimMessages {
    return {
      count: () => outbox.keyedCount,
      has: (key) => outbox.hasKey(key),
      post: async ({ key, text, agent }) => {
        const delivery = deliveryOf(text, agent === "" ? undefined : agent);
        const stream = streaming?.live.stream;
        // Already recorded (a re-run): only what is left of it is posted; the open preview is the answer's.
        if (!streaming || !stream || outbox.hasKey(key)) return outbox.deliver(delivery, { key });
        const placeholders = await stream.close();
        // The preview's crash record goes before the outbox names its messages: a re-run must never
        // resume the interim message's messages as the answer's preview and overwrite them.
        await stream.forget();
        const outcome = await outbox.deliver({ ...delivery, ...withPlaceholders(placeholders) }, { key });
        streaming.live.stream = await streaming.open();
        return outcome;
      },
    };
  }

  async #supersedeWaiting(turn: Turn): Promise<void> {
    try {
      await this.#options.laterRetries?.supersede(turn.key, turn.workId);
    } catch (error) {
      this.#options.logger.warn("could not check for a later retry this message supersedes", {
        key: turn.key,
        error,
      });
    }
  }

  /** The countdown sentence when the turn will be tried again later; undefined when it will not. */
  async #plannedLater(
    turn: Turn,
    messages: readonly InboundMessage[],
    error: unknown,
  ): Promise<string | undefined> {
    try {
      return await this.#options.laterRetries?.planned(turn, messages, error);
    } catch (planError) {
      this.#options.logger.error("could not plan a later retry; the user is asked to try again", {
        key: turn.key,
        error: planError,
      });
      return undefined;
    }
  }

  #openStream(turn: Turn): Promise<StreamingReply | undefined> {
    const { deliverer, logger } = this.#options;
    return deliverer.openStream(
      { conversation: turn.conversation, replyTo: turn.message.id, recipientId: turn.message.author.id },
      turn.workId,
      (error) => logger.warn("could not show the answer as it was written", { key: turn.key, error }),
    );
  }

  #delivery(turn: Turn, text: string, agent?: string): Delivery {
    return {
      conversation: turn.conversation,
      text,
      replyTo: turn.message.id,
      recipientId: turn.message.author.id,
      ...(agent === undefined ? {} : { agent }),
    };
  }

  /** The user gets one short sentence in the thread; the log gets the detail under the same reference. */
  async #report(
    turn: Turn,
    outbox: WorkOutbox,
    error: unknown,
    stream: StreamingReply | undefined,
    messages: readonly InboundMessage[],
  ): Promise<void> {
    const { logger } = this.#options;
    if (turn.signal.aborted) {
      logger.info("turn cancelled", { key: turn.key, reason: abortReason(turn.signal) });
      // What was shown so far stays, marked as cut short rather than looking complete.
      await stream
        ?.finish(`${stream.text}\n\n_(stopped)_`)
        .catch((e: unknown) => logger.warn("could not mark a stopped answer", { key: turn.key, error: e }));
      return;
    }
    const reference = randomBytes(3).toString("hex");
    const known = userMessageOf(error);
    const later = await this.#plannedLater(turn, messages, error);
    // A turn that will be tried again is not an error yet (an hour's outage would log thousands).
    if (later)
      logger.warn("turn failed: the model is unavailable; it is tried again later", { key: turn.key, error });
    else logger.error("turn failed", { key: turn.key, reference, error });
    const sentence =
      later ?? known ?? `Sorry, something went wrong while answering (reference ${reference}).`;
    try {
      // A partly streamed answer is replaced by the sentence, not left looking like the answer.
      const placeholders = (await stream?.close()) ?? [];
      await outbox.deliver(
        { ...this.#delivery(turn, sentence), ...withPlaceholders(placeholders) },
        { answer: true },
      );
      await stream?.forget();
    } catch (deliveryError) {
      logger.error("could not tell the user about a failed turn", {
        key: turn.key,
        reference,
        error: deliveryError,
      });
    }
  }
}

/** Why a recorded answer is given up: its delivery, tried again, ran past the time limit again. */
const RECORDED_ANSWER_TIMED_OUT = "its delivery ran past the turn's time limit";
const RECORDED_ANSWER_GIVEN_UP =
  "the delivery of a recorded answer ran past the time limit; it is given up and the queue goes on";

/** Why a unit whose recorded answer the time limit cut short stays queued. */
const RECORDED_ANSWER_LEFT =
  "the turn ran past its time limit while its recorded answer was being delivered; the next try delivers it";

/** The streamed answer of a turn in progress, for the error and cancel paths. */
interface LiveAnswer {
  stream?: StreamingReply | undefined;
}

function withPlaceholders(placeholders: readonly PostedMessage[]): Pick<Delivery, "placeholders"> {
  return placeholders.length > 0 ? { placeholders } : {};
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : String(reason);
}
