import type { AccessGate } from "../access/access-gate.ts";
import { parseCommand } from "../commands/command.ts";
import type { Adapter } from "../conversation/adapter.ts";
import type { InboundMessage } from "../conversation/messages.ts";
import type { Notices } from "../outbox/notices.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import { isAddressedToBot, type RejectReason, screenMessage } from "./admit.ts";
import { commandPrefixFor } from "./command-prefix.ts";
import type { ConversationIndex } from "./conversation-index.ts";
import { encodeWork } from "./queued-work.ts";
import { resolveConversation } from "./resolve.ts";
import type { ConversationSerializer } from "./serializer.ts";
import type { EngineSettings } from "./settings.ts";
import type { StopRequests } from "./stop-requests.ts";

/** What intake did with a message: queued under its conversation's key, or why it was not. */
export type AcceptOutcome = { accepted: true; key: string } | { accepted: false; reason: RejectReason };

export interface IntakeOptions {
  readonly store: Store;
  readonly adapters: readonly Adapter[];
  readonly index: ConversationIndex;
  readonly serializer: ConversationSerializer;
  readonly notices: Notices;
  readonly stops: StopRequests;
  /** Who may talk to the bot (`access:`); absent: everyone. */
  readonly access?: AccessGate | undefined;
  readonly settings: EngineSettings;
  readonly logger: Logger;
}

/**
 * What happens to one inbound message before any turn: admit (screen out our own and other bots'
 * messages, check who may talk), resolve its conversation, decide whether it is addressed to the
 * bot, and queue it durably, deduplicated by the platform's message id. `/stop` skips the queue.
 */
export class Intake {
  readonly #options: IntakeOptions;

  constructor(options: IntakeOptions) {
    this.#options = options;
  }

  async accept(message: InboundMessage): Promise<AcceptOutcome> {
    const { store, index, serializer, stops, settings } = this.#options;
    const screened = screenMessage(message);
    if (screened) return this.#reject(message, screened);
    const lostBefore = store.health?.dataLostBefore;
    if (lostBefore !== undefined && message.sentAt < lostBefore) {
      // Its dedupe mark may have gone with the store's data: it may have been answered already.
      this.#options.logger.warn("message not answered: sent before the store lost its data", {
        id: message.id,
        sentAt: new Date(message.sentAt).toISOString(),
      });
      return this.#reject(message, "before-data-loss");
    }
    const refused = await this.#checkAccess(message);
    if (refused) return this.#reject(message, refused);

    const resolved = await resolveConversation(message, index);
    // Participation is only looked up when nothing cheaper already addresses the bot.
    const addressedDirectly = isAddressedToBot(message, {
      repliesToBot: resolved.repliesToBot,
      botTakesPart: false,
    });
    if (!addressedDirectly && !(await index.isParticipating(resolved.key))) {
      return this.#reject(message, "not-addressed");
    }
    const dedupe = {
      key: seenMark(message),
      ttlMs: settings.dedupeTtlMs,
    };
    const command = parseCommand(message.text, settings.commandPrefixes);
    if (command?.name === "stop") {
      if (!(await store.atomic.setIfAbsent(dedupe.key, "1", dedupe.ttlMs)))
        return this.#reject(message, "duplicate");
      await stops.stop(resolved.key, { ...message, conversation: resolved.conversation });
      return { accepted: true, key: resolved.key };
    }
    // Asked here, the bot takes part from now on: a follow-up typed before the first answer is
    // posted continues the conversation (and queues behind it) without a mention.
    if (addressedDirectly) await index.markParticipating(resolved.key);
    const work = { kind: "message" as const, message: { ...message, conversation: resolved.conversation } };
    const queued = await serializer.submit(
      resolved.key,
      encodeWork(work, Date.now()),
      message.sentAt,
      dedupe,
    );
    if (!queued) return this.#reject(message, "duplicate");
    return { accepted: true, key: resolved.key };
  }

  /**
   * `access:`: null when the sender may talk here. A pairing reply (the sender's code) is posted
   * once per platform message id, so a platform's redelivery does not repeat it.
   */
  async #checkAccess(message: InboundMessage): Promise<RejectReason | null> {
    const { access, adapters, settings, store, notices } = this.#options;
    if (!access) return null;
    const adapter = adapters.find((one) => one.platform === message.conversation.platform);
    const where = adapter?.accessPlace?.(message) ?? { place: message.conversation.path[0] ?? "" };
    const prefix = commandPrefixFor(message.conversation.platform, adapters, settings.commandPrefixes);
    const verdict = await access.check(message, where, prefix);
    if (verdict.kind === "allow") return null;
    if (verdict.kind === "deny") return "not-allowed";
    if (verdict.reply !== null) {
      if (await store.atomic.setIfAbsent(seenMark(message), "1", settings.dedupeTtlMs)) {
        await notices.send(`pairing:${message.conversation.platform}:${message.id}`, {
          conversation: message.conversation,
          text: verdict.reply,
          replyTo: message.id,
          recipientId: message.author.id,
        });
      }
    }
    return "pairing";
  }

  #reject(message: InboundMessage, reason: RejectReason): AcceptOutcome {
    this.#options.logger.debug("message not answered", { id: message.id, reason });
    return { accepted: false, reason };
  }
}

/** The dedupe mark of a platform message: set once it is queued, or once its pairing reply is. */
function seenMark(message: InboundMessage): string {
  return `seen:${message.conversation.platform}:${message.id}`;
}
