import type Keyv from "keyv";
import { type ConversationRef, decodeConversationKey } from "../conversation/ref.ts";
import type { Continuation, ContinuationHandler, ContinuationWork } from "../engine/responder.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { SortedSets } from "../store/sorted-sets.ts";
import type { Store } from "../store/types.ts";
import type { ActiveAgentStore } from "../team/active-agents.ts";
import { HUMAN, type HumansConfig, SUPERVISOR } from "../team/team-config.ts";

/** Continuation types: the notice in the people's channel, and the line in a thread handed back by time. */
export const HUMAN_NOTICE = "human_notice";
export const HUMAN_RELEASED = "human_released";

const OPEN_SET = "handoffs:open";

/** A thread a person has taken over. */
export interface Handoff {
  readonly key: string;
  readonly conversation: ConversationRef;
  readonly since: number;
  /** Who asked for a person: a user id, or the agent that handed over. */
  readonly by: string;
  readonly reason: string;
  /** The agent that had the thread: it has it again when the person hands it back. */
  readonly previousAgent: string | null;
  /** When the bot takes the thread back by itself. */
  readonly releaseAt: number;
}

export interface HumanHandoffsOptions {
  readonly store: Store;
  readonly activeAgents: ActiveAgentStore;
  readonly config: HumansConfig;
  /** What memory knows of the thread, for the people's notice (absent: not said). */
  readonly summaryOf?: (key: string) => Promise<string | undefined>;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** What queues the notices: the engine. */
export interface NoticeQueue {
  enqueueContinuation(key: string, continuation: Continuation): Promise<boolean>;
}

/**
 * Handing a thread to a person, with the sticky router's own mechanism: the person becomes the
 * thread's active agent (`human`), so the bot records what is said there and answers nothing until
 * the thread is handed back (`/bot`, the console, or `releaseAfterMinutes`). The people are told in
 * their channel through that channel's queued work (the outbox: once, never lost); the handoff is a
 * record in the store with an index by when it lapses, shared by every process.
 */
export class HumanHandoffs {
  readonly #options: HumanHandoffsOptions;
  readonly #records: Keyv<Handoff>;
  readonly #sets: SortedSets;
  #queue: NoticeQueue | undefined;
  #timer: NodeJS.Timeout | undefined;

  /** How often lapsed handoffs are looked for (this process's timer, or once per cluster). */
  readonly sweepIntervalMs = 60_000;

  constructor(options: HumanHandoffsOptions) {
    this.#options = options;
    this.#records = options.store.namespace<Handoff>("human-handoffs");
    this.#sets = options.store.sortedSets;
  }

  bind(queue: NoticeQueue): void {
    this.#queue = queue;
  }

  get(key: string): Promise<Handoff | undefined> {
    return this.#records.get(key);
  }

  /** Gives the thread to a person; the sentence the thread reads. Taking a thread a person has is a no-op. */
  async take(key: string, by: string, reason: string, prefix = "/"): Promise<string> {
    const { activeAgents, clock, config } = this.#options;
    const who = config.mention ? ` (${config.mention})` : "";
    const existing = await this.get(key);
    if (existing) {
      // The same handoff again (a tool call repeated after a crash): make sure the person has it.
      await activeAgents.set(key, HUMAN, existing.since);
      return `A person has already been asked to take over this thread${who}.`;
    }
    const now = clock.now();
    const previous = await activeAgents.get(key);
    const handoff: Handoff = {
      key,
      conversation: decodeConversationKey(key),
      since: now,
      by,
      reason: reason.trim() || "asked for a person",
      previousAgent: previous && previous.agent !== HUMAN ? previous.agent : null,
      releaseAt: now + config.releaseAfterMinutes * 60_000,
    };
    await this.#records.set(key, handoff);
    await this.#sets.apply([{ set: OPEN_SET, member: key, score: handoff.releaseAt }]);
    await activeAgents.set(key, HUMAN, now);
    if (config.notify) await this.#notice(handoff);
    this.#options.logger.info("thread handed to a person", { key, by, reason: handoff.reason });
    const told = config.notify ? `I've asked a person to take over${who}. ` : "A person can take over now. ";
    return `${told}The bot will not answer in this thread until it is handed back with ${prefix}bot.`;
  }

  /** Hands the thread back to the bot (the agent that had it, else the supervisor); the sentence the thread reads. */
  async release(key: string, by: string): Promise<string> {
    const handoff = await this.get(key);
    if (!handoff) {
      // A handoff cut short by a crash (its record never written) must not leave the thread silent.
      if ((await this.#options.activeAgents.get(key))?.agent === HUMAN)
        await this.#options.activeAgents.clear(key);
      return "No person has this thread: the bot is answering here.";
    }
    await this.#end(handoff);
    this.#options.logger.info("thread handed back to the bot", { key, by });
    return `Back to the bot: ${handoff.previousAgent ?? SUPERVISOR} answers here again.`;
  }

  /** Open handoffs, the longest waiting first (the console). */
  async open(limit = 200): Promise<Handoff[]> {
    const entries = await this.#sets.upTo(OPEN_SET, Number.POSITIVE_INFINITY, limit);
    const records = await this.#records.getMany(entries.map((entry) => entry.member));
    return records
      .filter((record): record is Handoff => record !== undefined)
      .sort((a, b) => a.since - b.since);
  }

  /** Hands back threads nobody handed back in time, each with a line in its thread; returns how many. */
  async sweep(): Promise<number> {
    const now = this.#options.clock.now();
    const due = await this.#sets.upTo(OPEN_SET, now, 200);
    let released = 0;
    for (const { member } of due) {
      const handoff = await this.get(member);
      if (!handoff) {
        await this.#sets.apply([{ set: OPEN_SET, member, score: null }]);
        continue;
      }
      // The line first (queued once per handoff), then the handback: a crash between them repeats neither.
      await this.#requireQueue().enqueueContinuation(handoff.key, {
        id: `human-released:${handoff.key}:${handoff.since}`,
        requestId: `handoff:${handoff.since}`,
        type: HUMAN_RELEASED,
        data: {
          minutes: this.#options.config.releaseAfterMinutes,
          agent: handoff.previousAgent ?? SUPERVISOR,
        },
      });
      await this.#end(handoff);
      released += 1;
    }
    return released;
  }

  /** Role `all`: hands back lapsed handoffs on this process's timer. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(
      () =>
        void this.sweep().catch((error: unknown) =>
          this.#options.logger.warn("handoff sweep failed", { error }),
        ),
      this.sweepIntervalMs,
    );
    this.#timer.unref?.();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The engine's continuation handler: the notices here, everything else to `others`. */
  continuations(others: ContinuationHandler): ContinuationHandler {
    return {
      continue: (work: ContinuationWork) => {
        if (work.continuation.type === HUMAN_NOTICE) return this.#postNotice(work);
        if (work.continuation.type === HUMAN_RELEASED) return this.#postReleased(work);
        return others.continue(work);
      },
    };
  }

  async #end(handoff: Handoff): Promise<void> {
    const { activeAgents } = this.#options;
    const current = await activeAgents.get(handoff.key);
    if (current?.agent === HUMAN) {
      if (handoff.previousAgent) await activeAgents.set(handoff.key, handoff.previousAgent);
      else await activeAgents.clear(handoff.key);
    }
    await this.#sets.apply([{ set: OPEN_SET, member: handoff.key, score: null }]);
    await this.#records.delete(handoff.key);
  }

  async #notice(handoff: Handoff): Promise<void> {
    const notify = this.#options.config.notify;
    if (!notify) return;
    await this.#requireQueue().enqueueContinuation(notify, {
      // Once per handoff, however often whoever queues it runs again.
      id: `human-notice:${handoff.key}:${handoff.since}`,
      requestId: `handoff:${handoff.since}`,
      type: HUMAN_NOTICE,
      data: { key: handoff.key },
    });
  }

  async #postNotice(work: ContinuationWork): Promise<void> {
    const key = String(work.continuation.data?.key ?? "");
    const handoff = await this.get(key);
    if (!handoff) return;
    const { config, summaryOf } = this.#options;
    const summary = await summaryOf?.(key).catch(() => undefined);
    const lines = [
      `${config.mention ? `${config.mention} ` : ""}A thread wants a person: ${handoff.reason} (asked by ${handoff.by}).`,
      `Thread: \`${key}\`. Answer there; \`${work.commandPrefix ?? "/"}bot\` in the thread hands it back to the bot.`,
      ...(summary ? ["", "What the bot remembers of it:", summary] : []),
    ];
    await work.deliver({ conversation: decodeConversationKey(work.key), text: lines.join("\n") });
  }

  async #postReleased(work: ContinuationWork): Promise<void> {
    const minutes = Number(work.continuation.data?.minutes ?? 0);
    const agent = String(work.continuation.data?.agent ?? SUPERVISOR);
    await work.deliver({
      conversation: decodeConversationKey(work.key),
      text: `This thread has been with a person for ${minutes} minutes and nobody handed it back, so the bot is back: ${agent} answers here again.`,
    });
  }

  #requireQueue(): NoticeQueue {
    if (!this.#queue) throw new Error("HumanHandoffs.bind(engine) was not called");
    return this.#queue;
  }
}
