import type { Logger } from "@switchboard/core/adapter";
import {
  type APIApplication,
  ChannelType,
  type Client,
  DiscordAPIError,
  RESTJSONErrorCodes,
  Routes,
  WebhookClient,
} from "discord.js";
import { NO_PINGS } from "../connect/client.ts";

/** Where webhooks are kept: the adapter's namespace of the shared store (a Keyv), or memory. */
export interface KeptValues {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs?: number): Promise<unknown>;
  delete(key: string): Promise<unknown>;
}

/** Values kept for this process only, when the adapter was given no store. */
export function valuesInMemory(): KeptValues {
  const values = new Map<string, string>();
  return {
    get: async (key) => values.get(key),
    set: async (key, value) => values.set(key, value),
    delete: async (key) => values.delete(key),
  };
}

/** The name the channel's webhook has in the server's integration settings. */
export const AGENT_WEBHOOK_NAME = "Switchboard agents";

/** After Discord refused to let the bot manage webhooks in a channel, it asks again this much later. */
const REFUSAL_KEPT_MS = 10 * 60 * 1000;

const isApiError = (error: unknown, code: number) => error instanceof DiscordAPIError && error.code === code;

/**
 * One webhook per channel for agents' posts (a thread posts through its parent's, with
 * `thread_id`): kept in the shared store so every process and restart uses the same one, found
 * among the channel's webhooks when the store lost it, created when there is none. Where the bot
 * lacks Manage Webhooks (or the place has no webhooks: DMs), there is none and agents' names go
 * in front of the text instead.
 */
export class AgentWebhooks {
  readonly #client: () => Client;
  readonly #kept: KeptValues;
  readonly #logger: Logger;
  readonly #apiUrl: string;
  readonly #webhooks = new Map<string, Promise<WebhookClient | undefined>>();
  readonly #refusedUntil = new Map<string, number>();
  #applicationId: string | undefined;

  constructor(options: { client: () => Client; kept: KeptValues; logger: Logger; apiUrl: string }) {
    this.#client = options.client;
    this.#kept = options.kept;
    this.#logger = options.logger;
    this.#apiUrl = options.apiUrl;
  }

  /** The channel's webhook for agents; undefined where the bot may not have one. */
  forChannel(channelId: string): Promise<WebhookClient | undefined> {
    if ((this.#refusedUntil.get(channelId) ?? 0) > Date.now()) return Promise.resolve(undefined);
    let webhook = this.#webhooks.get(channelId);
    if (!webhook) {
      webhook = this.#resolve(channelId);
      this.#webhooks.set(channelId, webhook);
      const forgetUnlessFound = (found: WebhookClient | undefined) => {
        if (!found) this.#webhooks.delete(channelId);
      };
      webhook.then(forgetUnlessFound, () => this.#webhooks.delete(channelId));
    }
    return webhook;
  }

  /** Someone deleted the webhook (Discord answers Unknown Webhook): the next post finds or makes another. */
  async forget(channelId: string): Promise<void> {
    (await this.#webhooks.get(channelId)?.catch(() => undefined))?.destroy();
    this.#webhooks.delete(channelId);
    await this.#kept.delete(keyOf(channelId));
  }

  /** Closes the webhooks' connections (adapter stop). */
  async close(): Promise<void> {
    const webhooks = [...this.#webhooks.values()];
    this.#webhooks.clear();
    for (const webhook of await Promise.all(webhooks.map((pending) => pending.catch(() => undefined))))
      webhook?.destroy();
  }

  /**
   * A client for one webhook, on its own REST queue with no retries of failed requests: a post
   * whose answer was lost (a 500 after Discord made the message) must come back to AgentPosts,
   * which looks for the message before posting again — a blind resend would post it twice.
   * Rate limits are still waited out.
   */
  #clientFor(id: string, token: string): WebhookClient {
    return new WebhookClient(
      { id, token },
      { rest: { api: this.#apiUrl, retries: 0 }, allowedMentions: { ...NO_PINGS, parse: [] } },
    );
  }

  async #resolve(channelId: string): Promise<WebhookClient | undefined> {
    const client = this.#client();
    const kept = await this.#kept.get(keyOf(channelId));
    if (kept) {
      const { id, token } = JSON.parse(kept) as { id: string; token: string };
      try {
        await client.fetchWebhook(id, token);
        return this.#clientFor(id, token);
      } catch (error) {
        if (!isApiError(error, RESTJSONErrorCodes.UnknownWebhook)) throw error;
        await this.#kept.delete(keyOf(channelId));
      }
    }
    try {
      const channel = await client.channels.fetch(channelId);
      if (channel?.type !== ChannelType.GuildText && channel?.type !== ChannelType.GuildAnnouncement)
        return undefined;
      const applicationId = await this.#ownApplicationId();
      const existing = (await channel.fetchWebhooks()).find(
        (webhook) => webhook.applicationId === applicationId && webhook.token !== null,
      );
      const webhook =
        existing ??
        (await channel.createWebhook({
          name: AGENT_WEBHOOK_NAME,
          reason: "agents of the team post under their own names",
        }));
      if (!webhook.token) return undefined;
      await this.#kept.set(keyOf(channelId), JSON.stringify({ id: webhook.id, token: webhook.token }));
      return this.#clientFor(webhook.id, webhook.token);
    } catch (error) {
      if (
        isApiError(error, RESTJSONErrorCodes.MissingPermissions) ||
        isApiError(error, RESTJSONErrorCodes.MissingAccess)
      ) {
        this.#refusedUntil.set(channelId, Date.now() + REFUSAL_KEPT_MS);
        this.#logger.info(
          "the bot may not manage webhooks in this Discord channel: agents' names go in front of their messages (grant Manage Webhooks to use their names and avatars)",
          { channel: channelId },
        );
        return undefined;
      }
      throw error;
    }
  }

  /** Webhooks an application made carry its id; a REST-only client reads it once. */
  async #ownApplicationId(): Promise<string> {
    const client = this.#client();
    this.#applicationId ??=
      client.application?.id ?? ((await client.rest.get(Routes.currentApplication())) as APIApplication).id;
    return this.#applicationId;
  }
}

function keyOf(channelId: string): string {
  return `agent-webhook:${channelId}`;
}
