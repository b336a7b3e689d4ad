import type { WebClient } from "@slack/web-api";
import { type ConversationRef, encodeConversationKey, type Logger } from "@switchboard/core/adapter";
import { LRUCache } from "lru-cache";
import { postTargetOf } from "../conversations.ts";
import { explainSlackError, platformErrorCode } from "../slack-api-errors.ts";

export type WorkingIndicatorMode = "auto" | "status" | "reaction" | "off";

export interface WorkingIndicatorOptions {
  readonly client: WebClient;
  readonly logger: Logger;
  readonly mode: WorkingIndicatorMode;
  readonly status: string;
  readonly reaction: string;
  /** Slack drops a thread status after two minutes without a message; it is set again this often. */
  readonly statusRefreshMs?: number;
}

interface OriginMessage {
  readonly channel: string;
  readonly ts: string;
}

type Shown =
  | {
      readonly kind: "status";
      readonly channel: string;
      readonly threadTs: string;
      readonly refresh: NodeJS.Timeout;
    }
  | { readonly kind: "reaction"; readonly channel: string; readonly ts: string };

const DEFAULT_STATUS_REFRESH_MS = 90_000;

/**
 * Shows that a turn is running: the thread status line (assistant.threads.setStatus) where Slack
 * allows it, else an emoji reaction on the message being answered, removed at the end.
 */
export class WorkingIndicator {
  readonly #options: WorkingIndicatorOptions;
  /** The latest person-written message per conversation: what a reaction goes on. */
  readonly #origins = new LRUCache<string, OriginMessage>({ max: 10_000 });
  /** Channels where Slack refused a thread status; `auto` uses the reaction there from then on. */
  readonly #statusRefused = new LRUCache<string, true>({ max: 10_000 });
  readonly #shown = new Map<string, Shown>();

  constructor(options: WorkingIndicatorOptions) {
    this.#options = options;
  }

  noteOrigin(conversation: ConversationRef, channel: string, ts: string): void {
    this.#origins.set(encodeConversationKey(conversation), { channel, ts });
  }

  async start(conversation: ConversationRef): Promise<void> {
    const { mode } = this.#options;
    const target = postTargetOf(conversation);
    const key = encodeConversationKey(conversation);
    if (mode === "off" || target.kind === "ephemeral" || this.#shown.has(key)) return;
    if (
      (mode === "status" || mode === "auto") &&
      target.kind === "thread" &&
      !this.#statusRefused.has(target.channel)
    ) {
      if (await this.#showStatus(key, target.channel, target.threadTs)) return;
    }
    if (mode === "reaction" || mode === "auto") await this.#showReaction(key);
  }

  async stop(conversation: ConversationRef): Promise<void> {
    const key = encodeConversationKey(conversation);
    const shown = this.#shown.get(key);
    if (!shown) return;
    this.#shown.delete(key);
    const { client, reaction } = this.#options;
    if (shown.kind === "status") {
      clearInterval(shown.refresh);
      await client.assistant.threads
        .setStatus({ channel_id: shown.channel, thread_ts: shown.threadTs, status: "" })
        .catch((error: unknown) => explainSlackError("assistant.threads.setStatus", error));
      return;
    }
    await client.reactions
      .remove({ channel: shown.channel, timestamp: shown.ts, name: reaction })
      .catch((error: unknown) => {
        // Someone (or a retry) already took it off: the goal is reached.
        if (platformErrorCode(error) !== "no_reaction") explainSlackError("reactions.remove", error);
      });
  }

  /**
   * Puts what the team is doing into the thread status ("is checking your invoice…") while one is
   * shown; false when this conversation shows no status (a reaction, or nothing): the caller shows
   * it another way.
   */
  async progress(conversation: ConversationRef, text: string): Promise<boolean> {
    const shown = this.#shown.get(encodeConversationKey(conversation));
    if (shown?.kind !== "status") return false;
    await this.#options.client.assistant.threads
      .setStatus({ channel_id: shown.channel, thread_ts: shown.threadTs, status: text })
      .catch((error: unknown) => explainSlackError("assistant.threads.setStatus", error));
    return true;
  }

  /** True when the status shows; false when Slack refused it here and `auto` may fall back. */
  async #showStatus(key: string, channel: string, threadTs: string): Promise<boolean> {
    const { client, status, mode, logger } = this.#options;
    const set = () =>
      client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status });
    try {
      await set();
    } catch (error) {
      const code = platformErrorCode(error);
      if (mode === "status" || code === undefined) explainSlackError("assistant.threads.setStatus", error);
      this.#statusRefused.set(channel, true);
      logger.info("Slack refused a thread status here; showing a reaction instead", {
        channel,
        slackError: code,
      });
      return false;
    }
    const refresh = setInterval(() => {
      set().catch((error: unknown) => logger.warn("could not refresh the thread status", { channel, error }));
    }, this.#options.statusRefreshMs ?? DEFAULT_STATUS_REFRESH_MS);
    refresh.unref();
    this.#shown.set(key, { kind: "status", channel, threadTs, refresh });
    return true;
  }

  async #showReaction(key: string): Promise<void> {
    const origin = this.#origins.get(key);
    if (!origin) return;
    const { client, reaction } = this.#options;
    await client.reactions
      .add({ channel: origin.channel, timestamp: origin.ts, name: reaction })
      .catch((error: unknown) => {
        if (platformErrorCode(error) !== "already_reacted") explainSlackError("reactions.add", error);
      });
    this.#shown.set(key, { kind: "reaction", channel: origin.channel, ts: origin.ts });
  }
}
