import {
  type AgentIdentity,
  type ApprovalPrompt,
  chunkMarkdown,
  decisionLine,
  type OutboundMessage,
  type PostedMessage,
  withNamePrefix,
} from "@switchboard/core/adapter";
import { DiscordAPIError, RESTJSONErrorCodes } from "discord.js";
import { approvalButtons } from "../approvals/approval-buttons.ts";
import { withOutcome } from "../approvals/approval-presses.ts";
import { isInteractionMessageId } from "../commands/slash-commands.ts";
import { DISCORD_MESSAGE_LIMIT } from "../config.ts";
import { placeOf } from "../receive/places.ts";
import type { AgentPosts } from "./agent-posts.ts";
import type { ChannelPoster } from "./channel-poster.ts";
import type { CommandAnswers } from "./command-answers.ts";
import { discordNonce } from "./nonce.ts";
import { degradeTables } from "./tables.ts";

export interface DiscordPosterOptions {
  readonly answers: CommandAnswers;
  readonly agentPosts: AgentPosts;
  /** The started connection's poster; throws while the adapter is not started. */
  readonly channels: () => ChannelPoster;
  /** Some agent has a `display`: a bot-authored edit refused may be a webhook message to edit instead. */
  readonly identities: () => boolean;
}

/**
 * The one owner of which way the engine's texts go out, and of what a Discord message holds:
 * tables rewritten, split to Discord's limit, Approve / Deny on the last part. A slash command's
 * answer goes through its interaction (CommandAnswers), an agent's through the channel's webhook
 * (AgentPosts), anything else as the bot's own message (ChannelPoster); edits find the same way.
 */
export class DiscordPoster {
  readonly #answers: CommandAnswers;
  readonly #agentPosts: AgentPosts;
  readonly #channels: () => ChannelPoster;
  readonly #identities: () => boolean;

  constructor(options: DiscordPosterOptions) {
    this.#answers = options.answers;
    this.#agentPosts = options.agentPosts;
    this.#channels = options.channels;
    this.#identities = options.identities;
  }

  async post(message: OutboundMessage): Promise<PostedMessage> {
    const place = placeOf(message.conversation);
    const { replyTo, identity } = message;
    const command = isInteractionMessageId(replyTo);
    // An agent speaks through the channel's webhook; where there is none, its name goes in front.
    const route =
      identity && !command
        ? await this.#agentPosts.route(await this.#channels().placeFor(place, true), identity)
        : undefined;
    const formatted = degradeTables(
      identity && !route ? withNamePrefix(message.text, identity.name) : message.text,
    );
    // Rewriting tables can lengthen a chunk past Discord's limit; split again rather than fail.
    const parts =
      formatted.length <= DISCORD_MESSAGE_LIMIT
        ? [formatted]
        : chunkMarkdown(formatted, DISCORD_MESSAGE_LIMIT);
    const ids: string[] = [];
    for (const [index, part] of parts.entries()) {
      const key = message.idempotencyKey === undefined ? undefined : `${message.idempotencyKey}:${index}`;
      const buttons = buttonsOn(message.approval, index === parts.length - 1);
      // A slash command's answer never goes into the channel: it may be private.
      if (command) ids.push(await this.#answers.post(replyTo, part, buttons));
      else if (route) ids.push(await this.#agentPosts.post(route, part, key, buttons));
      else
        ids.push(
          await this.#channels().send(
            place,
            part,
            replyTo,
            key === undefined ? undefined : discordNonce(key),
            buttons,
          ),
        );
    }
    const [first] = ids;
    if (first === undefined) throw new Error("nothing to post: the message text is empty");
    return { id: first, conversation: message.conversation };
  }

  /** A streamed answer grows: the message's content is replaced (tables rewritten as when posting). */
  async edit(posted: PostedMessage, text: string, approval?: ApprovalPrompt): Promise<void> {
    const { identity } = posted;
    const [first, ...rest] = chunkMarkdown(degradeTables(text), DISCORD_MESSAGE_LIMIT);
    if (first === undefined) return;
    const buttons = buttonsOn(approval, rest.length === 0);
    const named = identity ? degradeTables(withNamePrefix(first, identity.name)) : first;
    await this.#replace(posted, first, named, buttons);
    // Only a rewritten table can outgrow the limit; what does not fit follows, never cut off.
    for (const [index, part] of rest.entries())
      await this.post({
        conversation: posted.conversation,
        text: part,
        ...(identity ? { identity } : {}),
        ...(approval && index === rest.length - 1 ? { approval } : {}),
      });
  }

  /** A prompt decided off its buttons (typed, console): the buttons go, the outcome shows. */
  async showDecision(
    prompt: PostedMessage,
    text: string,
    decision: { approved: boolean; by: string },
  ): Promise<void> {
    const line = decisionLine(decision);
    const { identity } = prompt;
    const content = withOutcome(degradeTables(text), line);
    const named = identity ? withOutcome(degradeTables(withNamePrefix(text, identity.name)), line) : content;
    await this.#replace(prompt, content, named, []);
  }

  /**
   * Replaces a message's content: through the interaction for a command's answer, through the
   * webhook for an agent's webhook message (`content`), as the bot otherwise (`named`: with the
   * agent's name in front, as it was posted).
   */
  async #replace(
    posted: PostedMessage,
    content: string,
    named: string,
    buttons: ReturnType<typeof buttonsOn>,
  ): Promise<void> {
    const command = await this.#answers.commandOf(posted.id);
    if (command !== undefined) {
      await this.#answers.edit(command, posted.id, named, buttons);
      return;
    }
    const place = placeOf(posted.conversation);
    const poster = this.#channels();
    const webhookRoute = async (identity: AgentIdentity | undefined) =>
      this.#agentPosts.route(await poster.placeFor(place, false), identity);
    if (posted.identity) {
      const route = await webhookRoute(posted.identity);
      if (route && (await this.#agentPosts.edit(route, posted.id, content, named, buttons))) return;
    }
    try {
      await poster.edit(place, posted.id, named, buttons);
    } catch (error) {
      // A webhook message whose writer has no display now (a handoff mid-answer): still the webhook's to edit.
      const anotherAuthor =
        error instanceof DiscordAPIError &&
        error.code === RESTJSONErrorCodes.CannotEditMessageAuthoredByAnotherUser;
      const route = anotherAuthor && this.#identities() ? await webhookRoute(undefined) : undefined;
      if (!route || !(await this.#agentPosts.edit(route, posted.id, content, content, buttons))) throw error;
    }
  }
}

/** The Approve / Deny row goes on the last message of a prompt, under the whole question. */
function buttonsOn(approval: ApprovalPrompt | undefined, last: boolean) {
  return approval && last ? [approvalButtons(approval)] : undefined;
}
