import type Keyv from "keyv";
import type { PostedMessage } from "../conversation/messages.ts";
import type { Store } from "../store/types.ts";

/** A turn that was re-run after a crash reuses its messages within this time; older ones are left. */
const RECORD_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The messages an answer has been streamed into so far, per turn (conversation + the message being
 * answered), kept in the store as they are posted. A process that dies mid-stream leaves a partial
 * answer in the thread; the turn is then answered again after the restart and its stream continues
 * in those same messages — so the thread ends with one complete answer, not a torso and a second copy.
 */
export class StreamRecords {
  readonly #records: Keyv<PostedMessage[]>;

  constructor(store: Store) {
    this.#records = store.namespace<PostedMessage[]>("streams");
  }

  async load(turnId: string): Promise<PostedMessage[]> {
    return (await this.#records.get(turnId)) ?? [];
  }

  async save(turnId: string, posted: readonly PostedMessage[]): Promise<void> {
    await this.#records.set(turnId, [...posted], RECORD_TTL_MS);
  }

  async clear(turnId: string): Promise<void> {
    await this.#records.delete(turnId);
  }
}

/** One id per turn: the conversation key and the id of the message it answers. */
export function streamTurnId(conversationKey: string, replyTo: string): string {
  return `${conversationKey}|${replyTo}`;
}
