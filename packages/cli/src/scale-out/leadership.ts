/**
 * Leader election for one singleton: every ingress campaigns for the same lease; the holder
 * renews it every third of its TTL, the others try to take it as often. A leader that dies stops
 * renewing, and a standby takes over within one TTL. A leader that cannot renew (Redis away, the
 * process paused) counts itself deposed once its last renewal could have expired, before any
 * standby can have taken the lease: two leaders never act at once.
 */
import type { Logger } from "@switchboard/core";
import type { HeldLease, LeaderLease } from "./leader-lease.ts";

/** What the singleton does as leadership comes and goes; calls never overlap. */
export interface LeadershipHandlers {
  /** This process now leads: start the singleton. A throw gives the lease back. */
  elected(lease: HeldLease): Promise<void>;
  /** It no longer leads (lease lost, or stopping): stop the singleton. */
  deposed(): Promise<void>;
  /** It does not lead (at start, after losing): the singleton's idle form, if it has one. */
  standby(): Promise<void>;
}

export interface LeadershipOptions {
  readonly lease: LeaderLease;
  /** What is led, for logs ("matrix receiving"). */
  readonly name: string;
  readonly ttlMs: number;
  readonly logger: Logger;
  /** Hears the end of each campaign round after the first (tests wait on rounds, not on the clock). */
  readonly onRound?: () => void;
}

export class Leadership {
  readonly #options: LeadershipOptions;
  #handlers: LeadershipHandlers | undefined;
  #held: HeldLease | undefined;
  /** Until when no other process can hold the lease (from the last acquire or renew sent). */
  #validUntil = 0;
  #standingBy = false;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #stopped = false;

  constructor(options: LeadershipOptions) {
    this.#options = options;
  }

  /**
   * Runs the first round, so a process that wins starts with the singleton running (and a failing
   * start fails start-up), then campaigns every third of the TTL.
   */
  async start(handlers: LeadershipHandlers): Promise<void> {
    this.#handlers = handlers;
    await this.#campaign(true);
    if (this.#stopped) return;
    this.#timer = setInterval(() => {
      this.#round ??= this.#campaign(false).finally(() => {
        this.#round = undefined;
        this.#options.onRound?.();
      });
    }, this.#intervalMs());
  }

  /** True while this process leads and its lease cannot have passed to anyone else. */
  holds(): boolean {
    return this.#held !== undefined && Date.now() < this.#validUntil;
  }

  /** Stops campaigning; a leader stops the singleton, then gives the lease back at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#round;
    const held = this.#held;
    if (!held) return;
    await this.#depose();
    await this.#options.lease.release(held).catch((error: unknown) =>
      this.#options.logger.warn(
        `could not give the ${this.#options.name} lease back; it expires on its own`,
        {
          error,
        },
      ),
    );
  }

  #intervalMs(): number {
    return Math.max(50, Math.floor(this.#options.ttlMs / 3));
  }

  /** A tenth of the TTL, for clocks that run apart and the time a command takes to arrive. */
  #validFrom(sentAt: number): number {
    return sentAt + this.#options.ttlMs - Math.ceil(this.#options.ttlMs / 10);
  }

  async #campaign(first: boolean): Promise<void> {
    if (this.#stopped) return;
    try {
      if (this.#held) await this.#renew(this.#held);
      else await this.#tryToLead(first);
    } catch (error) {
      if (first) throw error;
      this.#options.logger.warn(`${this.#options.name}: leader election round failed; trying again`, {
        error,
      });
    }
  }

  async #tryToLead(first: boolean): Promise<void> {
    const { lease, ttlMs, logger, name } = this.#options;
    const sentAt = Date.now();
    const held = await lease.acquire(ttlMs);
    if (!held) return this.#standBy();
    this.#held = held;
    this.#validUntil = this.#validFrom(sentAt);
    this.#standingBy = false;
    try {
      await this.#handlers?.elected(held);
      logger.info(`leading ${name}`, { fence: held.fence });
    } catch (error) {
      this.#held = undefined;
      await lease.release(held).catch(() => undefined);
      if (first) throw error;
      logger.error(`could not start ${name} after being elected; gave the lease back`, { error });
      await this.#standBy();
    }
  }

  async #renew(held: HeldLease): Promise<void> {
    const { lease, ttlMs, logger, name } = this.#options;
    const sentAt = Date.now();
    let renewed: boolean;
    try {
      renewed = await lease.renew(held, ttlMs);
    } catch (error) {
      if (this.holds()) throw error;
      logger.error(
        `${name}: could not renew the lease before it lapsed; stopping (another ingress may lead)`,
        {
          error,
        },
      );
      renewed = false;
    }
    if (renewed) {
      this.#validUntil = this.#validFrom(sentAt);
      return;
    }
    logger.warn(`no longer leading ${name}`, { fence: held.fence });
    await this.#depose();
    await this.#standBy();
  }

  async #depose(): Promise<void> {
    this.#held = undefined;
    this.#validUntil = 0;
    try {
      await this.#handlers?.deposed();
    } catch (error) {
      this.#options.logger.error(`${this.#options.name} did not stop cleanly after leading`, { error });
    }
  }

  async #standBy(): Promise<void> {
    if (this.#standingBy) return;
    this.#standingBy = true;
    const current = await this.#options.lease.holder().catch(() => undefined);
    this.#options.logger.info(`standing by for ${this.#options.name}`, {
      ...(current ? { leader: current.holder, fence: current.fence } : {}),
    });
    try {
      await this.#handlers?.standby();
    } catch (error) {
      this.#standingBy = false;
      throw error;
    }
  }
}
