import type { InboundMessage } from "../conversation/messages.ts";
import type { Turn } from "./responder.ts";

/**
 * What the engine asks of the second-tier retry (retry-later/), at the three points where a turn
 * meets it. The engine knows nothing of its records or timers; every method is durable before it
 * resolves, and none is called for a cancelled turn.
 */
export interface LaterRetries {
  /**
   * The turn failed. When the failure is the model being unavailable and the turn will be tried
   * again later, the retry is recorded and the sentence to post instead of the failure (the
   * countdown) is returned; otherwise undefined. Called again for the same work after a crash, it
   * keeps the retry it recorded.
   */
  planned(turn: Turn, messages: readonly InboundMessage[], error: unknown): Promise<string | undefined>;
  /** A newer message's turn starts in `key`: a retry still waiting there will not be answered. */
  supersede(key: string, workId: string): Promise<void>;
  /** `/stop` in `key`: a waiting retry is cancelled; true when there was one. */
  cancel(key: string): Promise<boolean>;
}
