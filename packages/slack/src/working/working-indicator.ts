import type { WebClient } from "@slack/web-api";
import {
  type BackoffPolicy,
  type ConversationRef,
  encodeConversationKey,
  type Logger,
  retryWithBackoff,
} from "@switchboard/core/adapter";
import { LRUCache } from "lru-cache";
import { postTargetOf } from "../conversations.ts";
import { explainSlackError, platformErrorCode, rateLimitedFor } from "../slack-api-errors.ts";

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
 * Taking off a reaction Slack refused to take off for its rate limit, later: tries after the first
 * Retry-After (each further one after Slack's next Retry-After, at most a minute).
 */
const LATER_REMOVAL: BackoffPolicy = { attempts: 2, baseDelayMs: 1_000, maxDelayMs: 60_000 };
/** A wait that never keeps the process alive (the removal runs beside everything else). */
const backgroundSleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

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
  /** Until when (epoch ms) no indicator is shown: Slack refused one for its rate limit. */
  #quietUntil = 0;

  constructor(options: WorkingIndicatorOptions) {
    this.#options = options;
  }

  noteOrigin(conversation: ConversationRef, channel: string, ts: string): void {
    this.#origins.set(encodeConversationKey(conversation), { channel, ts });
  }

  /**
   * Shows the indicator. Refused for Slack's rate limit, it is not shown — here nor in any other
   * conversation — for as long as Slack asked (logged once), rather than tried by every turn.
   */
  async start(conversation: ConversationRef): Promise<void> {
    const { mode } = this.#options;
    const target = postTargetOf(conversation);
    const key = encodeConversationKey(conversation);
    if (mode === "off" || target.kind === "ephemeral" || this.#shown.has(key)) return;
    if (Date.now() < this.#quietUntil) return;
    try {
      if (
        (mode === "status" || mode === "auto") &&
        target.kind === "thread" &&
        !this.#statusRefused.has(target.channel)
      ) {
        if (await this.#showStatus(key, target.channel, target.threadTs)) return;
      }
      if (mode === "reaction" || mode === "auto") await this.#showReaction(key);
    } catch (error) {
      const seconds = rateLimitedFor(error);
      if (seconds === undefined) throw error;
      this.#quietUntil = Date.now() + seconds * 1000;
      this.#options.logger.info("Slack rate-limited the working indicator; none is shown until it allows", {
        retryAfterSeconds: seconds,
      });
    }
  }

  async stop(conversation: ConversationRef): Promise<void> {
    const key = encodeConversationKey(conversation);
    const shown = this.#shown.get(key);
    if (!shown) return;
    this.#shown.delete(key);
    const { client } = this.#options;
    if (shown.kind === "status") {
      clearInterval(shown.refresh);
      await client.assistant.threads
        .setStatus({ channel_id: shown.channel, thread_ts: shown.threadTs, status: "" })
        .catch((error: unknown) => explainSlackError("assistant.threads.setStatus", error));
      return;
    }
    await this.#removeReaction(shown.channel, shown.ts).catch((error: unknown) =>
      explainSlackError("reactions.remove", error),
    );
  }

  /**
   * Takes the reaction off. Refused for Slack's rate limit, it is taken off later, after the
   * Retry-After, in the background (the turn does not wait): a working reaction must not stay.
   */
  async #removeReaction(channel: string, ts: string): Promise<void> {
    const { client, reaction, logger } = this.#options;
    const remove = async () => {
      try {
        await client.reactions.remove({ channel, timestamp: ts, name: reaction });
      } catch (error) {
        // Someone (or an earlier try) already took it off: the goal is reached.
        if (platformErrorCode(error) !== "no_reaction") throw error;
      }
    };
    try {
      await remove();
    } catch (error) {
      const seconds = rateLimitedFor(error);
      if (seconds === undefined) throw error;
      void backgroundSleep(seconds * 1000)
        .then(() =>
          retryWithBackoff(remove, {
            policy: LATER_REMOVAL,
            retryable: (failure) => rateLimitedFor(failure) !== undefined,
            retryAfterMs: (failure) => (rateLimitedFor(failure) ?? 0) * 1000,
            sleep: backgroundSleep,
          }),
        )
        .catch((failure: unknown) =>
          logger.warn("could not take the working reaction off", { channel, ts, error: failure }),
        );
    }
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
