import { setTimeout as sleep } from "node:timers/promises";
import type Keyv from "keyv";
import type { InboundMessage } from "../conversation/messages.ts";
import type { Notices } from "../outbox/notices.ts";
import type { Store } from "../store/types.ts";
import type { LaterRetries } from "./later-retries.ts";
import type { ConversationSerializer } from "./serializer.ts";

/** How long `/stop` waits for the turn it cancelled to end before it answers. */
const STOP_SETTLE_MS = 1_000;

export interface StopRequestsOptions {
  readonly store: Store;
  readonly serializer: ConversationSerializer;
  readonly notices: Notices;
  readonly laterRetries?: LaterRetries | undefined;
  /** A request for a turn running elsewhere is kept twice this long (its holder looks at every renewal). */
  readonly lockTtlMs: number;
}

/**
 * `/stop`, which skips the queue: it cancels the turn running now — in this process at once, in
 * another through a flag that turn's holder reads at its next lock renewal — and a retry waiting
 * for the model, and tells the person which of those it did.
 */
export class StopRequests {
  readonly #options: StopRequestsOptions;
  readonly #flags: Keyv<boolean>;

  constructor(options: StopRequestsOptions) {
    this.#options = options;
    this.#flags = options.store.namespace<boolean>("stop-requests");
  }

  /** Cancels what runs or waits in the conversation `key` and answers the `/stop` message. */
  async stop(key: string, message: InboundMessage): Promise<void> {
    const { serializer, laterRetries, store, notices, lockTtlMs } = this.#options;
    let reply = "Stopped the current answer.";
    // A retry waiting for the model is cancelled too (its countdown says so).
    let waitingRetry = false;
    if (serializer.cancel(key, "stopped by user")) {
      // The turn may have just planned a retry and be posting its countdown: the retry is cancelled
      // once the turn has ended, when the countdown's delivery is recorded and can be edited to say
      // so (cancelled earlier, the countdown would go on promising a retry that never comes).
      if (laterRetries) {
        // Bounded: the platform waits for this message's acknowledgement.
        await Promise.race([serializer.settled(key), sleep(STOP_SETTLE_MS, undefined, { ref: false })]);
        waitingRetry = await laterRetries.cancel(key);
        if (waitingRetry)
          reply = "Stopped: the answer that was waiting for the model will not be tried again.";
      }
    } else {
      waitingRetry = (await laterRetries?.cancel(key)) ?? false;
      const probe = await store.atomic.acquireLock(`lock:${key}`, 1_000);
      if (probe) {
        await store.atomic.releaseLock(`lock:${key}`, probe);
        reply = waitingRetry
          ? "Stopped: the answer that was waiting for the model will not be tried again."
          : "Nothing is running in this conversation.";
      } else {
        await this.#flags.set(key, true, lockTtlMs * 2);
        reply = "Stopping the current answer.";
      }
    }
    // Named by the /stop message: its redelivery is deduped by intake, a recovery posts it once.
    await notices.send(`stop:${message.conversation.platform}:${message.id}`, {
      conversation: message.conversation,
      text: reply,
      replyTo: message.id,
    });
  }

  /** True (once) when a `/stop` elsewhere asked the turn running here in `key` to end. */
  async take(key: string): Promise<boolean> {
    if (!(await this.#flags.get(key))) return false;
    await this.#flags.delete(key);
    return true;
  }
}
