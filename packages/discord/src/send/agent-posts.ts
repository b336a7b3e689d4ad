import type { AgentIdentity } from "@switchboard/core/adapter";
import {
  type ActionRowBuilder,
  type APIMessage,
  type ButtonBuilder,
  DiscordAPIError,
  type Message,
  RESTJSONErrorCodes,
  type SendableChannels,
  SnowflakeUtil,
  type WebhookClient,
} from "discord.js";
import type { AgentWebhooks, KeptValues } from "./agent-webhooks.ts";

/** Discord refuses webhook names containing these (and the names `everyone` / `here`). */
const RESERVED_IN_NAMES = ["clyde", "discord"];

/** The name a webhook message can show for this agent; undefined when Discord would refuse it. */
export function webhookUsername(name: string): string | undefined {
  const trimmed = name.trim();
  const lower = trimmed.toLowerCase();
  if (trimmed.length < 1 || trimmed.length > 80) return undefined;
  if (lower === "everyone" || lower === "here") return undefined;
  return RESERVED_IN_NAMES.some((word) => lower.includes(word)) ? undefined : trimmed;
}

/** An avatar Discord can fetch: an http(s) image URL (emoji codes are Slack's). */
export function webhookAvatar(icon: string | undefined): string | undefined {
  return icon && /^https?:\/\//i.test(icon) ? icon : undefined;
}

/** A post started under an idempotency key: any message from it landed after `after` (a snowflake). */
interface PostMark {
  readonly after: string;
}

/**
 * How long a post's mark is kept: longer than the outbox retries one delivery, so a retry after a
 * crash still finds the message the first attempt made.
 */
const MARK_TTL_MS = 24 * 60 * 60 * 1000;
/** Clocks differ: a mark looks this far back for the message of its post. */
const CLOCK_SLACK_MS = 60 * 1000;

/** Where an agent's message goes: the channel's webhook, into the thread when there is one. */
export interface AgentRoute {
  readonly webhook: WebhookClient;
  readonly channel: SendableChannels;
  readonly threadId?: string;
  /** Absent: the route only edits (a webhook message whose writer now has no display). */
  readonly username?: string;
  readonly avatarURL?: string;
}

type Buttons = readonly ActionRowBuilder<ButtonBuilder>[];

/**
 * Agents' messages through the channel's webhook, under the agent's name and avatar. Webhook
 * execution has no nonce, so exactly-once is kept here: before a post with an idempotency key a
 * mark is stored, and a later attempt with the same key (a retry, a re-run after a crash) first
 * looks in the channel for the message the earlier one made — same webhook, name and content,
 * after the mark — and posts only when it is not there.
 */
export class AgentPosts {
  readonly #webhooks: AgentWebhooks;
  readonly #marks: KeptValues;

  constructor(webhooks: AgentWebhooks, marks: KeptValues) {
    this.#webhooks = webhooks;
    this.#marks = marks;
  }

  /**
   * The webhook route for an agent's post into `channel` (a thread or a channel); undefined where
   * there is none. Without an identity, a route to edit the webhook's messages.
   */
  async route(
    channel: SendableChannels,
    identity: AgentIdentity | undefined,
  ): Promise<AgentRoute | undefined> {
    const username = identity ? webhookUsername(identity.name) : undefined;
    if ((identity && !username) || channel.isDMBased()) return undefined;
    const parentId = channel.isThread() ? channel.parentId : channel.id;
    if (!parentId) return undefined;
    const webhook = await this.#webhooks.forChannel(parentId);
    if (!webhook) return undefined;
    const avatarURL = webhookAvatar(identity?.icon);
    return {
      webhook,
      channel,
      ...(channel.isThread() ? { threadId: channel.id } : {}),
      ...(username ? { username } : {}),
      ...(avatarURL ? { avatarURL } : {}),
    };
  }

  /** Posts one message through the route; with a key, never a second copy of an earlier attempt's. */
  async post(
    route: AgentRoute,
    content: string,
    key: string | undefined,
    buttons?: Buttons,
  ): Promise<string> {
    if (key !== undefined) {
      const mark = await this.#marks.get(markKey(key));
      if (mark) {
        const landed = await this.#landed(route, content, (JSON.parse(mark) as PostMark).after);
        if (landed) return landed.id;
      } else {
        const after = SnowflakeUtil.generate({ timestamp: Date.now() - CLOCK_SLACK_MS }).toString();
        await this.#marks.set(markKey(key), JSON.stringify({ after } satisfies PostMark), MARK_TTL_MS);
      }
    }
    const sent = await this.#withWebhook(route, () =>
      route.webhook.send({
        content,
        ...(route.username ? { username: route.username } : {}),
        ...(route.avatarURL ? { avatarURL: route.avatarURL } : {}),
        ...(route.threadId ? { threadId: route.threadId } : {}),
        ...(buttons ? { components: [...buttons] } : {}),
        allowedMentions: { parse: [] },
      }),
    );
    return sent.id;
  }

  /**
   * Edits a message the webhook posted; false when it is not one of the webhook's (it was posted
   * as the bot). The name of a webhook message cannot change: when the writer changed since (a
   * handoff mid-answer), the new writer's name goes in front of the text.
   */
  async edit(
    route: AgentRoute,
    messageId: string,
    content: string,
    prefixed: string,
    buttons?: Buttons,
  ): Promise<boolean> {
    const edit = (text: string) =>
      this.#withWebhook(route, () =>
        route.webhook.editMessage(messageId, {
          content: text,
          ...(route.threadId ? { threadId: route.threadId } : {}),
          ...(buttons ? { components: [...buttons] } : {}),
          allowedMentions: { parse: [] },
        }),
      );
    let edited: APIMessage;
    try {
      edited = await edit(content);
    } catch (error) {
      if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMessage) return false;
      throw error;
    }
    if (route.username && edited.author.username !== route.username && content !== prefixed)
      await edit(prefixed);
    return true;
  }

  /** The message an earlier attempt posted: the webhook's, with this name and content, after the mark. */
  async #landed(route: AgentRoute, content: string, after: string): Promise<Message | undefined> {
    const recent = await route.channel.messages.fetch({ after, limit: 100 });
    return recent.find(
      (message) =>
        message.webhookId === route.webhook.id &&
        message.author.username === route.username &&
        message.content.trim() === content.trim(),
    );
  }

  /** A webhook someone deleted is forgotten, so the next post makes a new one; this one fails as it is. */
  async #withWebhook<T>(route: AgentRoute, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownWebhook) {
        const channelId = route.channel.isThread() ? route.channel.parentId : route.channel.id;
        if (channelId) await this.#webhooks.forget(channelId);
      }
      throw error;
    }
  }
}

function markKey(idempotencyKey: string): string {
  return `agent-post:${idempotencyKey}`;
}
