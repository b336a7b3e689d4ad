/**
 * People mentioning the bot, as Slack delivers it to an app in HTTP mode: a stored message and its
 * two events (`app_mention` and `message`), signed, to the process a test picks — and Slack's
 * retries of them: the same bodies, the same event_ids, with `X-Slack-Retry-Num`.
 */
import { appMentionEvent, type EventBody, eventCallback, messageEvent } from "../slack/event-payloads.ts";
import type { Delivery, HttpEventTransport } from "../slack/event-transport.ts";
import {
  ALICE,
  BOT_USER_ID,
  GENERAL,
  type StoredMessage,
  type WorkspaceState,
} from "../slack/workspace-state.ts";

/** One message a person wrote, with the event bodies Slack sends (and resends) for it. */
export interface Origin {
  /** The word in the question that the stub's answer repeats (`q007`, `t012m03`). */
  readonly token: string;
  readonly message: StoredMessage;
  /** The thread the answer belongs in: the message's own ts for a new thread. */
  readonly threadTs: string;
  readonly bodies: readonly EventBody[];
}

export class SlackTraffic {
  readonly #state: WorkspaceState;

  constructor(state: WorkspaceState) {
    this.#state = state;
  }

  /** A mention in #general that starts a thread, or (with `threadTs`) continues one. */
  mention(token: string, threadTs?: string, words = "please help with"): Origin {
    return this.#write(`<@${BOT_USER_ID}> ${words} ${token}`, token, threadTs);
  }

  /** A reply in a thread without a mention (Slack sends only the `message` event). */
  reply(token: string, threadTs: string, words = "and also"): Origin {
    const message = this.#state.add({
      channel: GENERAL,
      user: ALICE,
      text: `${words} ${token}`,
      thread_ts: threadTs,
    });
    return { token, message, threadTs, bodies: [eventCallback(messageEvent(this.#state, message))] };
  }

  #write(text: string, token: string, threadTs: string | undefined): Origin {
    const message = this.#state.add({
      channel: GENERAL,
      user: ALICE,
      text,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    return {
      token,
      message,
      threadTs: threadTs ?? message.ts,
      // Slack's order for a mention in a channel: app_mention, then message.
      bodies: [eventCallback(appMentionEvent(message)), eventCallback(messageEvent(this.#state, message))],
    };
  }

  /** Slack's first delivery (no retry number) or a retry (`retryNum` ≥ 1) of every event of `origin`. */
  async deliver(transport: HttpEventTransport, origin: Origin, retryNum?: number): Promise<Delivery[]> {
    const deliveries: Delivery[] = [];
    for (const body of origin.bodies) deliveries.push(await transport.deliverEvent(body, retryNum));
    return deliveries;
  }

  /**
   * As Slack does: the first delivery, then up to three retries (same event_ids, `X-Slack-Retry-Num`)
   * while the app refuses or the connection fails. Resolves with whether it was finally acked.
   */
  async deliverUntilAcked(transport: HttpEventTransport, origin: Origin): Promise<boolean> {
    for (let retryNum = 0; retryNum <= 3; retryNum++) {
      try {
        const deliveries = await this.deliver(transport, origin, retryNum === 0 ? undefined : retryNum);
        if (deliveries.every((delivery) => delivery.status >= 200 && delivery.status < 300)) return true;
      } catch {
        // Connection refused or closed: Slack retries.
      }
    }
    return false;
  }

  /**
   * Delivers every origin once, `parallel` requests at a time (Slack does not wait for one event's
   * ack before sending the next). A delivery the app refused or could not take (connection refused,
   * killed) is reported, not thrown: Slack would retry it.
   */
  async deliverAll(
    transport: HttpEventTransport,
    origins: readonly Origin[],
    options: { retryNum?: number; parallel?: number } = {},
  ): Promise<{ acked: Origin[]; refused: Origin[] }> {
    const acked: Origin[] = [];
    const refused: Origin[] = [];
    const queue = [...origins];
    const worker = async () => {
      for (let origin = queue.shift(); origin; origin = queue.shift()) {
        try {
          const deliveries = await this.deliver(transport, origin, options.retryNum);
          if (deliveries.every((delivery) => delivery.status >= 200 && delivery.status < 300))
            acked.push(origin);
          else refused.push(origin);
        } catch {
          refused.push(origin);
        }
      }
    };
    await Promise.all(Array.from({ length: options.parallel ?? 10 }, worker));
    return { acked, refused };
  }
}
