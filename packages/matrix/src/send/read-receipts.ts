/** `POST /rooms/{room}/receipt/m.read/{event}` with its body, through the SDK's client. */
export type SendReceipt = (roomId: string, eventId: string) => Promise<void>;

/**
 * Marks the messages the bot answers as read, so their authors see the bot has read them (a
 * person's client shows the bot's avatar under the message). A receipt is a courtesy: a failed
 * one is reported and never fails the answer. Each message is marked once, on its first answer chunk.
 */
export class ReadReceipts {
  readonly #send: SendReceipt;
  readonly #onError: (error: unknown, roomId: string, eventId: string) => void;
  /** Last message marked per room; a later chunk of the same answer needs no second receipt. */
  readonly #lastMarked = new Map<string, string>();

  constructor(send: SendReceipt, onError: (error: unknown, roomId: string, eventId: string) => void) {
    this.#send = send;
    this.#onError = onError;
  }

  async markRead(roomId: string, eventId: string): Promise<void> {
    if (this.#lastMarked.get(roomId) === eventId) return;
    this.#lastMarked.set(roomId, eventId);
    try {
      await this.#send(roomId, eventId);
    } catch (error) {
      this.#lastMarked.delete(roomId);
      this.#onError(error, roomId, eventId);
    }
  }
}
