import {
  type ApprovalDecider,
  type ApprovalPrompt,
  type ConversationRef,
  decisionLine,
  decodeConversationKey,
  encodeConversationKey,
  type Logger,
  type PostedMessage,
} from "@switchboard/core/adapter";
import { LRUCache } from "lru-cache";
import type { KeyValue } from "../connect/key-value.ts";
import { isRecord, type MatrixEvent, relationOf } from "../receive/matrix-event.ts";
import type { MessagePoster } from "../send/message-poster.ts";

export const APPROVE_KEY = "✅";
export const DENY_KEY = "❌";
/** Marks a prompt in its own content, so a reaction after a restart still finds its request. */
export const APPROVAL_FIELD = "org.switchboard.approval";
/** Shown under the question: Matrix has no buttons, the seeded reactions are one click away. */
export const REACTION_HINT = `React ${APPROVE_KEY} to approve or ${DENY_KEY} to deny.`;
/** Longer than any approval waits. */
const PROMPT_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const promptKey = (eventId: string) => `approval-prompt:${eventId}`;

interface KnownPrompt {
  readonly requestId: string;
  readonly conversation: ConversationRef;
  /** The prompt's markdown, to edit the outcome in under it. */
  readonly text: string;
}

export interface ReactionApprovalsOptions {
  readonly poster: MessagePoster;
  readonly botUserId: string;
  readonly decider: () => ApprovalDecider | undefined;
  /**
   * Where prompts are remembered by event id across restarts (a prompt edited into a streamed
   * message has no mark in its original content). Without it, only the mark in content is read.
   */
  readonly kv?: KeyValue;
  /** The event a reaction annotates (`GET /rooms/{room}/event/{id}`), for prompts posted before a restart. */
  readonly fetchEvent: (roomId: string, eventId: string) => Promise<unknown>;
  readonly logger: Logger;
}

/**
 * Approve / Deny on Matrix: the prompt is a message the bot seeds with ✅ and ❌ reactions; a
 * reaction by the requester (or an admin) decides — core checks who, and claims the decision once.
 * The prompt is then edited to say the outcome and who decided. Matrix has no private replies in a
 * room, so anyone else is told in a short notice in the thread; a late or repeated reaction is quiet.
 */
export class ReactionApprovals {
  readonly #options: ReactionApprovalsOptions;
  readonly #known = new LRUCache<string, KnownPrompt>({ max: 1_000 });

  constructor(options: ReactionApprovalsOptions) {
    this.#options = options;
  }

  /** Content fields that mark a message as the prompt for `prompt`. */
  static fieldsFor(prompt: ApprovalPrompt, conversation: ConversationRef, text: string) {
    return {
      [APPROVAL_FIELD]: {
        request_id: prompt.requestId,
        conversation: encodeConversationKey(conversation),
        text,
      },
    };
  }

  /**
   * Seeds ✅ and ❌ on a posted prompt. Transaction ids follow the post's idempotency key, so a
   * repeated delivery of the same prompt does not seed twice.
   */
  async prompted(posted: PostedMessage, prompt: ApprovalPrompt, text: string, idempotencyKey?: string) {
    const known = { requestId: prompt.requestId, conversation: posted.conversation, text };
    this.#known.set(posted.id, known);
    await this.#options.kv?.set(
      promptKey(posted.id),
      JSON.stringify({ ...known, conversation: encodeConversationKey(posted.conversation) }),
      PROMPT_TTL_MS,
    );
    const [roomId = ""] = posted.conversation.path;
    for (const key of [APPROVE_KEY, DENY_KEY])
      await this.#options.poster.react(roomId, posted.id, key, `${idempotencyKey ?? posted.id}:seed:${key}`);
  }

  async onReaction(roomId: string, reaction: MatrixEvent): Promise<void> {
    const { botUserId, logger } = this.#options;
    if (reaction.sender === botUserId) return;
    const relation = relationOf(reaction.content);
    const key = (reaction.content["m.relates_to"] as { key?: unknown } | undefined)?.key;
    if (relation.relType !== "m.annotation" || !relation.eventId) return;
    if (key !== APPROVE_KEY && key !== DENY_KEY) return;
    const prompt = this.#known.get(relation.eventId) ?? (await this.#lookUp(roomId, relation.eventId));
    if (!prompt) return;
    const decider = this.#options.decider();
    if (!decider) {
      logger.warn("an approval reaction arrived, but approvals are not wired to this adapter");
      return;
    }
    const answer = await decider.decide({
      requestId: prompt.requestId,
      approved: key === APPROVE_KEY,
      platform: "matrix",
      actor: { id: reaction.sender, name: reaction.sender },
    });
    const posted = { id: relation.eventId, conversation: prompt.conversation };
    switch (answer.kind) {
      case "decided":
        await this.#options.poster.edit(
          posted,
          `${prompt.text}\n\n${decisionLine({ approved: answer.approved, by: reaction.sender })}`,
        );
        return;
      case "not-allowed":
        await this.#options.poster.post({
          conversation: prompt.conversation,
          text: `Only ${answer.requesterId} (or an admin) can approve or deny this.`,
        });
        return;
      case "not-waiting":
        logger.debug("an approval reaction came after the decision", {
          roomId,
          eventId: reaction.event_id,
          requestId: prompt.requestId,
        });
    }
  }

  async #lookUp(roomId: string, eventId: string): Promise<KnownPrompt | undefined> {
    const { kv } = this.#options;
    if (kv) {
      // Every prompt is remembered here: anything else is a reaction to some other message.
      const stored = await kv.get(promptKey(eventId));
      if (stored === undefined) return undefined;
      const { requestId, conversation, text } = JSON.parse(stored) as Record<string, string>;
      return requestId && conversation && text !== undefined
        ? { requestId, conversation: decodeConversationKey(conversation), text }
        : undefined;
    }
    // Without a store, the prompt's own content says which request it asks about.
    const event = await this.#options.fetchEvent(roomId, eventId).catch(() => undefined);
    if (!isRecord(event) || event.sender !== this.#options.botUserId || !isRecord(event.content))
      return undefined;
    const field = event.content[APPROVAL_FIELD];
    if (!isRecord(field)) return undefined;
    const { request_id, conversation, text } = field;
    if (typeof request_id !== "string" || typeof conversation !== "string" || typeof text !== "string")
      return undefined;
    return { requestId: request_id, conversation: decodeConversationKey(conversation), text };
  }
}
