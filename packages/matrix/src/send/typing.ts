/** `PUT /rooms/{room}/typing/{user}` through the SDK. */
export type SetTyping = (roomId: string, typing: boolean, timeoutMs: number) => Promise<void>;

const TYPING_TIMEOUT_MS = 30_000;
/** Renewed before the homeserver's timeout runs out, so a long turn keeps showing. */
const RENEW_EVERY_MS = 20_000;

/**
 * The "typing…" indicator while turns run. Matrix shows typing per room, not per thread, so turns in
 * several threads of one room share it: it stops when the last of them ends.
 */
export class TypingIndicator {
  readonly #setTyping: SetTyping;
  readonly #rooms = new Map<string, { turns: number; renew: NodeJS.Timeout }>();
  readonly #onRenewError: (error: unknown) => void;

  constructor(setTyping: SetTyping, onRenewError: (error: unknown) => void) {
    this.#setTyping = setTyping;
    this.#onRenewError = onRenewError;
  }

  async start(roomId: string): Promise<void> {
    const active = this.#rooms.get(roomId);
    if (active) {
      active.turns++;
      return;
    }
    const renew = setInterval(() => {
      this.#setTyping(roomId, true, TYPING_TIMEOUT_MS).catch(this.#onRenewError);
    }, RENEW_EVERY_MS);
    renew.unref();
    this.#rooms.set(roomId, { turns: 1, renew });
    await this.#setTyping(roomId, true, TYPING_TIMEOUT_MS);
  }

  async stop(roomId: string): Promise<void> {
    const active = this.#rooms.get(roomId);
    if (!active) return;
    if (--active.turns > 0) return;
    clearInterval(active.renew);
    this.#rooms.delete(roomId);
    await this.#setTyping(roomId, false, TYPING_TIMEOUT_MS);
  }

  /** On shutdown: clear every indicator we are showing. */
  async stopAll(): Promise<void> {
    const rooms = [...this.#rooms.keys()];
    for (const roomId of rooms) {
      const active = this.#rooms.get(roomId);
      if (active) active.turns = 1;
      await this.stop(roomId);
    }
  }
}
