import type { WebClient } from "@slack/web-api";
import {
  type ApprovalPrompt,
  type ConversationRef,
  chunkMarkdown,
  encodeConversationKey,
  type OutboundMessage,
  type PostedMessage,
} from "@switchboard/core/adapter";
import { approvalBlocks, decidedPromptBlocks, type SlackBlock } from "../approvals/approval-blocks.ts";
import {
  isSlashCommandId,
  messageId,
  type PostTarget,
  parseMessageId,
  postTargetOf,
} from "../conversations.ts";
import { explainSlackError, platformErrorCode } from "../slack-api-errors.ts";
import { type SlackAuthorship, slackFace } from "./agent-face.ts";
import { escapeText } from "./escape.ts";
import { markdownToMrkdwn } from "./mrkdwn.ts";

/**
 * Slack shows up to 4,000 characters of `text` before clients fold it away (and truncates past
 * 40,000); no message we post is longer.
 */
export const SLACK_TEXT_LIMIT = 4_000;

/**
 * Markdown chunks the engine hands us stay under this, leaving room for what conversion adds
 * (escapes, table padding); anything that still grows past SLACK_TEXT_LIMIT is split again.
 */
export const MARKDOWN_CHUNK_LIMIT = 3_500;

/** Marks our messages so their origin is visible to anything reading the thread (and to tests). */
export const METADATA_EVENT_TYPE = "switchboard_answer";

/** Where a slash command may still be answered when the bot is not in the channel. */
export type ResponseUrlLookup = (originId: string) => Promise<string | undefined>;

/**
 * A slash command used where the bot is not a member can only be answered through its
 * response_url, and this process has none for it: expired (Slack takes answers for 30 minutes), or
 * never kept in the shared store. The answer is private; it is not posted anywhere else.
 */
export class ResponseUrlUnavailableError extends Error {
  constructor(channel: string, originId: string) {
    super(
      `the bot is not in Slack channel ${channel}, and the response_url of the slash command ${originId} is not in the shared store (it expired after 30 minutes, or the process that received the command had no store): invite the bot to the channel (/invite @bot) to answer there`,
    );
    this.name = "ResponseUrlUnavailableError";
  }
}

export interface SlackPosterOptions {
  readonly client: WebClient;
  /**
   * The client new messages are posted with: one that never repeats a call by itself. Slack has no
   * idempotency key, so a post repeated after a 500 or a cut connection — Slack may have acted —
   * would show the answer twice; the outbox looks for the post before trying again instead.
   * Default: `client`.
   */
  readonly postClient?: WebClient;
  readonly responseUrlOf: ResponseUrlLookup;
  readonly fetch?: typeof fetch;
  /** The app may post under a per-message name and icon (it has chat:write.customize). */
  readonly customize: () => boolean;
}

/** Turns markdown chunks into Slack messages in the right thread (or privately), within Slack's limits. */
export class SlackPoster {
  readonly #options: SlackPosterOptions;

  constructor(options: SlackPosterOptions) {
    this.#options = options;
  }

  async post(message: OutboundMessage): Promise<PostedMessage> {
    const target = postTargetOf(message.conversation);
    const ids: string[] = [];
    const face = slackFace(message.text, message.identity, this.#options.customize());
    const texts = toSlackTexts(face.markdown);
    for (const [index, text] of texts.entries()) {
      // The buttons go on the last message, under the whole question.
      const blocks =
        message.approval && index === texts.length - 1 ? approvalBlocks(text, message.approval) : undefined;
      ids.push(await this.#postOne(target, text, message, blocks, face.authorship));
    }
    const [first] = ids;
    if (first === undefined) throw new RangeError("nothing to post: the message text is blank");
    return { id: first, conversation: message.conversation };
  }

  /**
   * Our message marked with `idempotencyKey` in the conversation's thread (or channel), if Slack has
   * it. Ephemeral posts cannot be looked up; they are never found.
   */
  async findPosted(
    conversation: ConversationRef,
    idempotencyKey: string,
  ): Promise<PostedMessage | undefined> {
    const target = postTargetOf(conversation);
    if (target.kind === "ephemeral") return undefined;
    const { client } = this.#options;
    let cursor: string | undefined;
    do {
      const page =
        target.kind === "thread"
          ? await client.conversations
              .replies({
                channel: target.channel,
                ts: target.threadTs,
                include_all_metadata: true,
                limit: 200,
                ...(cursor ? { cursor } : {}),
              })
              .catch((error: unknown) => explainSlackError("conversations.replies", error))
          : await client.conversations
              .history({ channel: target.channel, include_all_metadata: true, limit: 100 })
              .catch((error: unknown) => explainSlackError("conversations.history", error));
      const found = page.messages?.find((message) => {
        if (message.metadata?.event_type !== METADATA_EVENT_TYPE) return false;
        // The Web API types the payload as {}; it is the object we posted.
        const payload: Record<string, unknown> = { ...message.metadata.event_payload };
        return payload.idempotency_key === idempotencyKey;
      });
      if (found?.ts) return { id: messageId(target.channel, found.ts), conversation };
      // A channel's newest messages are enough: a post being recovered is recent.
      cursor = target.kind === "thread" ? page.response_metadata?.next_cursor || undefined : undefined;
    } while (cursor);
    return undefined;
  }

  /** Replaces a posted message's text; what does not fit follows as new messages in the same place. */
  async edit(posted: PostedMessage, markdown: string, approval?: ApprovalPrompt): Promise<void> {
    const target = postTargetOf(posted.conversation);
    const where = parseMessageId(posted.id);
    const face = slackFace(markdown, posted.identity, this.#options.customize());
    const { authorship } = face;
    const texts = toSlackTexts(face.markdown);
    const [first, ...rest] = texts;
    if (first === undefined) return;
    const blocksFor = (text: string, index: number) =>
      approval && index === texts.length - 1 ? approvalBlocks(text, approval) : undefined;
    if (target.kind === "ephemeral" || !where) {
      // Ephemeral messages cannot be changed through the Web API: the new text follows instead.
      for (const [index, text] of texts.entries())
        await this.#postOne(
          target,
          text,
          { conversation: posted.conversation, text },
          blocksFor(text, index),
          authorship,
        );
      return;
    }
    const blocks = blocksFor(first, 0);
    await this.#update(
      { channel: where.channel, ts: where.ts, text: first, ...(blocks ? { blocks } : {}) },
      authorship,
    );
    for (const [index, text] of rest.entries())
      await this.#postOne(
        target,
        text,
        { conversation: posted.conversation, text },
        blocksFor(text, index + 1),
        authorship,
      );
  }

  /** A prompt's buttons give way to the outcome (ephemeral prompts cannot be changed this way). */
  async showDecision(
    posted: PostedMessage,
    markdown: string,
    decision: { approved: boolean; by: string },
  ): Promise<void> {
    const where = parseMessageId(posted.id);
    if (!where || postTargetOf(posted.conversation).kind === "ephemeral") return;
    const face = slackFace(markdown, posted.identity, this.#options.customize());
    const text = toSlackTexts(face.markdown).at(-1) ?? "";
    await this.#update(
      { channel: where.channel, ts: where.ts, text, blocks: decidedPromptBlocks(text, decision) },
      face.authorship,
    );
  }

  /**
   * chat.update, keeping the agent's name and icon: Slack drops a message's custom username and
   * icon when it is updated without them (slackapi/node-slack-sdk#944), and the Web API's types
   * leave these fields out of chat.update's arguments, so the call goes through apiCall.
   */
  async #update(
    args: { channel: string; ts: string; text: string; blocks?: readonly SlackBlock[] },
    authorship: SlackAuthorship | undefined,
  ): Promise<void> {
    const { client } = this.#options;
    const call = authorship
      ? client.apiCall("chat.update", { ...args, ...authorship })
      : client.chat.update({ ...args, ...(args.blocks ? { blocks: [...args.blocks] } : {}) });
    await call.catch((error: unknown) => explainSlackError("chat.update", error));
  }

  async #postOne(
    target: PostTarget,
    text: string,
    message: OutboundMessage,
    blocks?: readonly SlackBlock[],
    authorship?: SlackAuthorship,
  ): Promise<string> {
    const client = this.#options.postClient ?? this.#options.client;
    if (target.kind === "ephemeral") return this.#postPrivately(target, text, message, blocks, authorship);
    const result = await client.chat
      .postMessage({
        channel: target.channel,
        ...(target.kind === "thread" ? { thread_ts: target.threadTs } : {}),
        text,
        ...authorship,
        ...(blocks ? { blocks: [...blocks] } : {}),
        mrkdwn: true,
        // Never let Slack turn names into mentions, nor preview every link the team cites.
        link_names: false,
        unfurl_links: false,
        unfurl_media: false,
        metadata: {
          event_type: METADATA_EVENT_TYPE,
          event_payload: {
            conversation: encodeConversationKey(message.conversation),
            ...(message.replyTo === undefined ? {} : { in_reply_to: message.replyTo }),
            // Slack has no idempotency key: the mark lets recovery find a post that did land.
            ...(message.idempotencyKey === undefined ? {} : { idempotency_key: message.idempotencyKey }),
          },
        },
      })
      .catch((error: unknown) => explainSlackError("chat.postMessage", error));
    if (!result.ts) throw new Error("Slack accepted chat.postMessage but returned no ts");
    return messageId(result.channel ?? target.channel, result.ts);
  }

  async #postPrivately(
    target: PostTarget & { kind: "ephemeral" },
    text: string,
    message: OutboundMessage,
    blocks?: readonly SlackBlock[],
    authorship?: SlackAuthorship,
  ): Promise<string> {
    const user = message.recipientId ?? target.user;
    try {
      const result = await this.#options.client.chat.postEphemeral({
        channel: target.channel,
        user,
        text,
        ...authorship,
        ...(blocks ? { blocks: [...blocks] } : {}),
        link_names: false,
      });
      if (!result.message_ts) throw new Error("Slack accepted chat.postEphemeral but returned no message_ts");
      return messageId(target.channel, result.message_ts);
    } catch (error) {
      const code = platformErrorCode(error);
      const { replyTo } = message;
      // Slash commands work in channels the bot is not in; their response_url still reaches the user.
      if ((code === "not_in_channel" || code === "channel_not_found") && isSlashCommandId(replyTo)) {
        const responseUrl = await this.#options.responseUrlOf(replyTo);
        if (responseUrl === undefined) throw new ResponseUrlUnavailableError(target.channel, replyTo);
        await this.#respond(responseUrl, text);
        // A response_url reply has no ts; it can be neither edited nor replied to.
        return `response:${replyTo}`;
      }
      return explainSlackError("chat.postEphemeral", error);
    }
  }

  async #respond(responseUrl: string, text: string): Promise<void> {
    const response = await (this.#options.fetch ?? fetch)(responseUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ response_type: "ephemeral", replace_original: false, text }),
    });
    if (!response.ok)
      throw new Error(`Slack refused the slash command's response_url: HTTP ${response.status}`);
  }
}

/** One markdown chunk → the Slack texts to post, each within SLACK_TEXT_LIMIT, code blocks intact. */
export function toSlackTexts(markdown: string): string[] {
  // Markdown with nothing visible (a lone link definition) is still posted, as typed.
  const mrkdwn = markdownToMrkdwn(markdown) || escapeText(markdown.trim());
  if (mrkdwn === "") return [];
  return mrkdwn.length <= SLACK_TEXT_LIMIT ? [mrkdwn] : chunkMarkdown(mrkdwn, SLACK_TEXT_LIMIT);
}
