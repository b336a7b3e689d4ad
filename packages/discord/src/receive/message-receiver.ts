import type { InboundSink, Logger } from "@switchboard/core/adapter";
import type { Client, Message, PartialMessage } from "discord.js";
import { type ThreadNames, threadNameFor } from "../send/thread-names.ts";
import { type Allowlist, isAllowed } from "./allowlist.ts";
import { messagesAfter } from "./channel-history.ts";
import { toInboundMessage } from "./inbound-message.ts";
import { messageFacts } from "./message-facts.ts";
import { MissedMessages } from "./missed-messages.ts";

/** The gateway client and where its messages go, while this process holds the gateway. */
export interface Receiving {
  readonly client: Client;
  readonly sink: InboundSink;
}

export interface MessageReceiverOptions {
  readonly allow: Allowlist;
  /** A channel message's thread, once the bot starts one, is named after it. */
  readonly threadNames: ThreadNames;
  readonly logger: Logger;
  /** For reading back: the gateway and the sink now; throws when this process does not hold the gateway. */
  readonly receiving: () => Receiving;
}

/**
 * Reading back what the engine refused: a round every 5 s while any channel is behind, for up to an
 * hour after a channel's first refused message (the store outages worth waiting out; a longer one
 * is an incident whose messages people send again), at most 1,000 channels at once.
 */
const READ_BACK_EVERY_MS = 5_000;
const READ_BACK_WINDOW_MS = 60 * 60_000;
const READ_BACK_MAX_CHANNELS = 1_000;

/** The engine did not take a message (store unreachable, stopping): nothing of it was kept. */
class SinkRefusedError extends Error {
  constructor(cause: unknown) {
    super("the engine did not take the message", { cause });
    this.name = "SinkRefusedError";
  }
}

/**
 * Gateway messages and edits → the engine. Discord never delivers a message twice, so one the
 * engine refused (store down) is read back from its channel's history once the engine takes
 * messages again (MissedMessages); a refused edit is not answered.
 */
export class MessageReceiver {
  readonly #options: MessageReceiverOptions;
  /** Messages the engine refused (store down), read back from the channels' history once it takes them. */
  readonly #missed: MissedMessages<Message>;

  constructor(options: MessageReceiverOptions) {
    this.#options = options;
    this.#missed = this.#readingBack();
  }

  /** Hands one gateway message (or the new text of an edit) to the engine; never rejects, it logs. */
  async receive(
    client: Client,
    sink: InboundSink,
    message: Message | PartialMessage,
    isEdit: boolean,
  ): Promise<void> {
    const { logger } = this.#options;
    try {
      await this.#handOver(client, sink, message, isEdit);
      if (!isEdit) this.#missed.taken(message.channelId, message.id);
    } catch (error) {
      if (error instanceof SinkRefusedError) {
        // The gateway never delivers it again: read back from the channel's history later. An
        // edit is not: the message's first text was taken or is read back with its new text.
        if (!isEdit) this.#missed.refused(message.channelId, message.id);
        logger.warn(
          isEdit
            ? "could not hand a Discord edit to the engine; the edit is not answered"
            : "could not hand a Discord message to the engine; it is read back from the channel once the engine takes messages again",
          { id: message.id, error: error.cause },
        );
        return;
      }
      logger.error("could not hand a Discord message to the engine", { id: message.id, error });
    }
  }

  /** The gateway connection stopped: nothing is read back until it is connected again. */
  pause(): void {
    this.#missed.pause();
  }

  /** The gateway connection is back: what was refused, or sent while it was away, is read back. */
  resume(): void {
    this.#missed.resume();
  }

  /** Resolves once the engine took the message (or it is not one to take); SinkRefusedError otherwise. */
  async #handOver(
    client: Client,
    sink: InboundSink,
    message: Message | PartialMessage,
    isEdit: boolean,
  ): Promise<void> {
    const facts = await messageFacts(message, isEdit);
    if (!facts || !client.user || !isAllowed(facts.location, this.#options.allow)) return;
    const botRole = message.guild?.members.me?.roles.botRole;
    const inbound = toInboundMessage(facts, {
      userId: client.user.id,
      roleIds: botRole ? [botRole.id] : [],
    });
    if (!inbound) return;
    if (facts.location.kind === "channel" && !isEdit) {
      this.#options.threadNames.remember(facts.id, threadNameFor(inbound.text, facts.author.displayName));
    }
    try {
      await sink(inbound);
    } catch (error) {
      throw new SinkRefusedError(error);
    }
  }

  #readingBack(): MissedMessages<Message> {
    const { logger, receiving } = this.#options;
    return new MissedMessages<Message>({
      read: (channelId, afterId, limit) => messagesAfter(receiving().client, channelId, afterId, limit),
      handOver: (message) => {
        const { client, sink } = receiving();
        return this.#handOver(client, sink, message, false);
      },
      onCaughtUp: (channelId, handedOver) =>
        logger.info("read back Discord messages the engine had not taken", { channelId, handedOver }),
      onGivenUp: (channelId, reason) =>
        logger.error(
          "gave up reading back Discord messages the engine had not taken; they are not answered",
          {
            channelId,
            reason,
          },
        ),
      onRoundFailed: (channelId, error) =>
        logger.warn("could not read back refused Discord messages yet; trying again", { channelId, error }),
      retryEveryMs: READ_BACK_EVERY_MS,
      windowMs: READ_BACK_WINDOW_MS,
      maxChannels: READ_BACK_MAX_CHANNELS,
    });
  }
}
