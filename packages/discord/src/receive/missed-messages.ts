/**
 * Messages the gateway delivered while the engine could not take them (the store unreachable, the
 * intake deadline passed). Slack delivers a refused event again and a Matrix sync retries its
 * batch, but Discord's gateway never sends a message twice: what it delivered and we did not store
 * is read back from the channel's history instead.
 *
 * A channel falls behind at its first message the engine refused; from then on, every few seconds,
 * the adapter asks Discord for the messages after the one before it (`GET /channels/{id}/messages
 * ?after=`, oldest first, a page at a time) and hands them over in order until the engine takes a
 * whole page with room to spare. Messages it had already taken come back too and are dropped by the
 * engine's dedupe (same message id), so reading from the first refusal on never answers twice.
 *
 * The gateway connection itself may stop and start again in the same process: a cluster ingress
 * that could not renew its lease on Redis disconnects, and connects again once it leads again. So
 * the last message taken in each channel is remembered too, and a connection started again within
 * `windowMs` of the stop reads every such channel back from there: what was refused before the stop
 * and what was sent while nobody listened.
 *
 * Bounded: a channel is read back for at most `windowMs` after its first refusal (then it is given
 * up with an error naming it), at most `maxChannels` channels are behind (and remembered) at once
 * (beyond that the longest-waiting one is given up, the least recently active one forgotten), and
 * only this process remembers: one that restarts during the outage, or another ingress taking the
 * gateway over, reads nothing back.
 */
export interface MissedMessagesOptions<M> {
  /** Reads up to `limit` messages of `channelId` after `afterId`, oldest first. */
  readonly read: (channelId: string, afterId: string, limit: number) => Promise<readonly ReadBack<M>[]>;
  /** Hands one message read back to the engine; rejects when it cannot take it yet. */
  readonly handOver: (message: M) => Promise<void>;
  readonly onGivenUp: (channelId: string, reason: string) => void;
  readonly onCaughtUp: (channelId: string, handedOver: number) => void;
  readonly onRoundFailed: (channelId: string, error: unknown) => void;
  /** How often a behind channel is read again. */
  readonly retryEveryMs: number;
  readonly windowMs: number;
  readonly maxChannels: number;
  readonly now?: () => number;
}

/** One message as read back: its id (a snowflake) and whatever the reader hands over. */
export interface ReadBack<M> {
  readonly id: string;
  readonly message: M;
}

interface Behind {
  /** Read after this snowflake (the one before the first refused message, then the last handed over). */
  after: bigint;
  /** The newest message refused: the channel is caught up once it has been handed over. */
  lastRefused: bigint;
  readonly since: number;
  handedOver: number;
}

/** Discord's largest page of channel history. */
export const PAGE = 100;

export class MissedMessages<M> {
  readonly #options: MissedMessagesOptions<M>;
  readonly #behind = new Map<string, Behind>();
  /** The last message taken per channel, least recently active first. */
  readonly #lastTaken = new Map<string, bigint>();
  #pausedAt: number | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #round: Promise<void> | undefined;

  constructor(options: MissedMessagesOptions<M>) {
    this.#options = options;
  }

  /** Channels being read back now. */
  get behind(): number {
    return this.#behind.size;
  }

  /** The engine took message `messageId` of `channelId` (or judged it not one to answer). */
  taken(channelId: string, messageId: string): void {
    this.#lastTaken.delete(channelId);
    this.#lastTaken.set(channelId, BigInt(messageId));
    if (this.#lastTaken.size > this.#options.maxChannels) {
      const [oldest] = this.#lastTaken.keys();
      if (oldest !== undefined) this.#lastTaken.delete(oldest);
    }
  }

  /** The gateway connection stopped: no rounds until it is back (what is behind stays behind). */
  pause(): void {
    this.#stopTimer();
    // A send-only start and stop in between (a standby ingress) is no new pause.
    this.#pausedAt ??= this.#now();
  }

  /**
   * The gateway connection is back: every channel a message was taken in is read back from that
   * message on (what was sent meanwhile), if the stop was within the window.
   */
  resume(): void {
    const pausedAt = this.#pausedAt;
    this.#pausedAt = undefined;
    if (pausedAt === undefined) return;
    if (this.#now() - pausedAt > this.#options.windowMs) {
      for (const channelId of [...this.#behind.keys()])
        this.#giveUp(channelId, `the gateway was away more than ${this.#options.windowMs / 1_000} s`);
      return;
    }
    for (const [channelId, last] of this.#lastTaken) {
      if (!this.#behind.has(channelId))
        this.#behind.set(channelId, { after: last, lastRefused: last, since: pausedAt, handedOver: 0 });
    }
    if (this.#behind.size > 0) this.#startTimer();
  }

  /** The engine refused message `messageId` of `channelId`: read the channel back from it on. */
  refused(channelId: string, messageId: string): void {
    const id = BigInt(messageId);
    const known = this.#behind.get(channelId);
    if (known) {
      if (id - 1n < known.after) known.after = id - 1n;
      if (id > known.lastRefused) known.lastRefused = id;
    } else {
      if (this.#behind.size >= this.#options.maxChannels) this.#giveUpOldest();
      this.#behind.set(channelId, { after: id - 1n, lastRefused: id, since: this.#now(), handedOver: 0 });
    }
    if (this.#pausedAt === undefined) this.#startTimer();
  }

  /** One round: every behind channel read back as far as the engine takes it. */
  async catchUp(): Promise<void> {
    for (const [channelId, behind] of [...this.#behind]) {
      if (this.#now() - behind.since > this.#options.windowMs) {
        this.#giveUp(channelId, `still refused ${this.#options.windowMs / 1_000} s after the first refusal`);
        continue;
      }
      try {
        await this.#readBack(channelId, behind);
      } catch (error) {
        this.#options.onRoundFailed(channelId, error);
      }
    }
    if (this.#behind.size === 0) this.#stopTimer();
  }

  async #readBack(channelId: string, behind: Behind): Promise<void> {
    for (;;) {
      const page = await this.#options.read(channelId, String(behind.after), PAGE);
      for (const read of page) {
        // In order: a message the engine refuses stops the channel here until the next round.
        await this.#options.handOver(read.message);
        behind.after = BigInt(read.id);
        behind.handedOver += 1;
        this.taken(channelId, read.id);
      }
      if (page.length < PAGE) break;
    }
    // A live message refused while this round ran, and not yet in the history it read: next round.
    if (this.#behind.get(channelId) !== behind || behind.after < behind.lastRefused) return;
    this.#behind.delete(channelId);
    if (behind.handedOver > 0) this.#options.onCaughtUp(channelId, behind.handedOver);
  }

  #giveUpOldest(): void {
    let oldest: [string, Behind] | undefined;
    for (const entry of this.#behind) if (!oldest || entry[1].since < oldest[1].since) oldest = entry;
    if (oldest) this.#giveUp(oldest[0], `more than ${this.#options.maxChannels} channels behind`);
  }

  #giveUp(channelId: string, reason: string): void {
    this.#behind.delete(channelId);
    this.#options.onGivenUp(channelId, reason);
  }

  #startTimer(): void {
    this.#timer ??= setInterval(() => {
      this.#round ??= this.catchUp().finally(() => {
        this.#round = undefined;
      });
    }, this.#options.retryEveryMs);
    this.#timer.unref?.();
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }
}
