import type { EncryptionCounts, Logger } from "@switchboard/core/adapter";
import { isRecord, type MatrixEvent, relationOf } from "../receive/matrix-event.ts";
import { classifyDecryptionFailure, type FailureReason } from "./decryption-failure.ts";
import { noticeGroupOf, type WaitingEvent, type WaitingEvents } from "./waiting-events.ts";

/** A room key the crypto stored (from a to-device `m.room_key`, a forwarded key, a backup). */
export interface ArrivedKey {
  readonly roomId: string;
  readonly sessionId: string;
}

export interface UndecryptableEventsOptions {
  readonly waiting: WaitingEvents;
  /** How long an event waits for its key before its sender is asked to resend. */
  readonly noticeAfterMs: number;
  /** Decrypts a kept event now (throws as the sync's decryption does). */
  readonly decrypt: (roomId: string, raw: unknown) => Promise<MatrixEvent>;
  /** Hands a decrypted event on as the sync would have (to be answered, or a reaction decided). */
  readonly deliver: (roomId: string, event: MatrixEvent) => Promise<void>;
  /** Posts the notice asking the sender to resend (encrypted, idempotent per event). */
  readonly postNotice: (event: WaitingEvent) => Promise<void>;
  readonly logger: Logger;
  /** True when `matrix.encryption.trust` is `verified-only` (named in the refusal's log line). */
  readonly verifiedOnly: boolean;
  readonly now?: () => number;
}

/** A notice that cannot be posted is tried this many times, a minute apart, then given up (and logged). */
const NOTICE_ATTEMPTS = 5;
const NOTICE_RETRY_MS = 60_000;

/**
 * Encrypted events the bot could not read. One whose key has not arrived is kept (in the store,
 * bounded) and read the moment its key arrives — a late `m.room_key`, a forwarded key — then handed
 * on like any synced event. One still waiting after `noticeAfterMs` is given up: its sender gets ONE
 * notice in the room (per room, sender and key: every event of one missing key is one problem)
 * asking to send it again, and it is never answered after that, so a resent message is not answered
 * twice. Events from devices the trust setting refuses, and broken ones, are logged, never kept.
 *
 * Every change runs one at a time, in arrival order: a key that arrives in the batch after its
 * event finds the event already kept.
 */
export class UndecryptableEvents {
  readonly #options: UndecryptableEventsOptions;
  readonly #now: () => number;
  readonly #failures = new Map<FailureReason, number>();
  #queue: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: UndecryptableEventsOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Reads what was kept before a restart, tries each once (its key may have come meanwhile), and plans the notices. */
  start(): Promise<void> {
    return this.#serially(async () => {
      await this.#options.waiting.load();
      const kept = this.#options.waiting.list();
      if (kept.length > 0)
        this.#options.logger.info("Matrix events kept from before waiting for their keys", {
          events: kept.length,
        });
      await this.#retry(kept);
    });
  }

  /** Lets running work finish; no notice is posted after this. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#queue;
  }

  /** For the metrics: decryption failures since start, by reason, and the events waiting for keys. */
  counts(): EncryptionCounts {
    return { decryptionFailures: Object.fromEntries(this.#failures), waiting: this.#options.waiting.size };
  }

  /** The sync could not decrypt `event` (a `room.failed_decryption`). Resolves once it is kept, when it is. */
  failed(roomId: string, event: MatrixEvent, raw: unknown, error: unknown): Promise<void> {
    const failure = classifyDecryptionFailure(error);
    this.#failures.set(failure.reason, (this.#failures.get(failure.reason) ?? 0) + 1);
    const { logger } = this.#options;
    const fields = { roomId, eventId: event.event_id, sender: event.sender, error: failure.detail };
    if (failure.kind === "refused") {
      logger.warn(
        this.#options.verifiedOnly
          ? "refused a Matrix message from a device its owner has not verified (matrix.encryption.trust is verified-only); it is not answered"
          : "refused a Matrix message from a device the crypto does not trust; it is not answered",
        fields,
      );
      return Promise.resolve();
    }
    const sessionId = event.content.session_id;
    if (failure.kind === "unreadable" || typeof sessionId !== "string") {
      logger.warn("could not decrypt a Matrix message, and no key can fix it; it is not answered", fields);
      return Promise.resolve();
    }
    return this.#serially(
      async () => {
        const { waiting, noticeAfterMs } = this.#options;
        if (waiting.has(event.event_id)) return;
        const receivedAt = this.#now();
        const threadRoot = threadRootOfEncrypted(event);
        const entry: WaitingEvent = {
          eventId: event.event_id,
          roomId,
          sender: event.sender,
          sessionId,
          ...(threadRoot === undefined ? {} : { threadRoot }),
          receivedAt,
          // A withheld key will not come: the sender hears at once.
          noticeAt: failure.withheld === undefined ? receivedAt + noticeAfterMs : receivedAt,
          ...(failure.withheld === undefined ? {} : { withheld: failure.withheld }),
          noticeFailures: 0,
        };
        const dropped = await waiting.add(entry, raw);
        logger.info("could not decrypt a Matrix message yet; keeping it until its key arrives", {
          ...fields,
          sessionId,
          ...(failure.withheld === undefined ? {} : { withheld: failure.withheld }),
        });
        for (const gone of dropped)
          logger.warn("too many Matrix messages waiting for keys; dropped the oldest, it is not answered", {
            roomId: gone.roomId,
            eventId: gone.eventId,
            sender: gone.sender,
          });
        this.#schedule();
      },
      { rejects: true },
    );
  }

  /** Room keys the crypto stored: the events waiting for them are read now. */
  keysArrived(keys: readonly ArrivedKey[]): Promise<void> {
    return this.#serially(async () => {
      const arrived = new Set(keys.map((key) => `${key.roomId}|${key.sessionId}`));
      const matching = this.#options.waiting
        .list()
        .filter((entry) => arrived.has(`${entry.roomId}|${entry.sessionId}`));
      await this.#retry(matching);
    });
  }

  /**
   * Tries to read each event; those read are handed on and forgotten, the rest wait on. Resolves
   * with the events still unreadable (a read event the engine could not take yet waits too, but it
   * is not unreadable: its sender is never told its key is missing).
   */
  async #retry(entries: readonly WaitingEvent[]): Promise<WaitingEvent[]> {
    const { waiting, decrypt, deliver, logger } = this.#options;
    const unreadable: WaitingEvent[] = [];
    for (const entry of entries) {
      const fields = { roomId: entry.roomId, eventId: entry.eventId };
      const raw = await waiting.raw(entry.eventId);
      if (raw === undefined) {
        await waiting.remove([entry.eventId]);
        continue;
      }
      let event: MatrixEvent;
      try {
        event = await decrypt(entry.roomId, raw);
      } catch (error) {
        const failure = classifyDecryptionFailure(error);
        if (failure.kind === "wait") {
          unreadable.push(entry);
          continue;
        }
        logger.warn("a kept Matrix message still cannot be read, and no key will fix it; dropped", {
          ...fields,
          error: failure.detail,
        });
        await waiting.remove([entry.eventId]);
        continue;
      }
      logger.info("decrypted a kept Matrix message: its key arrived", {
        ...fields,
        waitedMs: this.#now() - entry.receivedAt,
      });
      try {
        // Handed on before it is forgotten: a crash in between hands it on again, and the engine's
        // dedupe drops the second.
        await deliver(entry.roomId, event);
      } catch (error) {
        logger.warn("could not hand on a decrypted kept Matrix message; trying again in a minute", {
          ...fields,
          error: error instanceof Error ? error.message : String(error),
        });
        await waiting.update({ ...entry, noticeAt: this.#now() + NOTICE_RETRY_MS });
        continue;
      }
      await waiting.remove([entry.eventId]);
    }
    this.#schedule();
    return unreadable;
  }

  /** Posts the notices that are due: one per group never told before; the group's events are then given up. */
  async #noticeDue(): Promise<void> {
    const { waiting, postNotice, logger } = this.#options;
    const now = this.#now();
    // Read once more first: a key may have come without reaching a retry (the engine was busy).
    const due = await this.#retry(waiting.list().filter((entry) => entry.noticeAt <= now));
    const told = new Set<string>();
    const failing = new Set<string>();
    for (const entry of due) {
      if (this.#stopped) return;
      const group = noticeGroupOf(entry);
      const fields = { roomId: entry.roomId, eventId: entry.eventId, sender: entry.sender };
      if (failing.has(group)) {
        await waiting.update({ ...entry, noticeAt: now + NOTICE_RETRY_MS });
        continue;
      }
      if (!told.has(group) && !waiting.wasNoticed(group)) {
        try {
          await postNotice(entry);
        } catch (error) {
          const failures = entry.noticeFailures + 1;
          if (failures < NOTICE_ATTEMPTS) {
            logger.warn("could not post the notice about an unreadable Matrix message; trying again", {
              ...fields,
              failures,
              error: error instanceof Error ? error.message : String(error),
            });
            await waiting.update({ ...entry, noticeFailures: failures, noticeAt: now + NOTICE_RETRY_MS });
            failing.add(group);
            continue;
          }
          logger.error("gave up posting the notice about an unreadable Matrix message", {
            ...fields,
            error: error instanceof Error ? error.message : String(error),
          });
        }
        await waiting.markNoticed(group);
        told.add(group);
        logger.warn("a Matrix message's key never arrived; asked its sender to send it again", {
          ...fields,
          waitedMs: now - entry.receivedAt,
        });
      } else {
        logger.info("a Matrix message's key never arrived; its sender was already asked to resend", fields);
      }
      await waiting.remove([entry.eventId]);
    }
  }

  /** One timer, for the earliest notice due. */
  #schedule(): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const next = Math.min(...this.#options.waiting.list().map((entry) => entry.noticeAt));
    if (!Number.isFinite(next)) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        void this.#serially(async () => {
          await this.#noticeDue();
          this.#schedule();
        });
      },
      Math.max(0, next - this.#now()),
    );
    // Waiting notices never keep a stopping process alive.
    this.#timer.unref();
  }

  /**
   * Runs `work` after everything queued before it. A failure is logged and later work still runs;
   * the returned promise rejects with it only for a caller that must not go on (`failed`: the sync
   * batch is then handled again, so the event is not lost).
   */
  #serially(work: () => Promise<void>, options: { rejects?: boolean } = {}): Promise<void> {
    const run = this.#queue.then(work);
    const logged = run.catch((error: unknown) =>
      this.#options.logger.error("handling Matrix messages that wait for their keys failed", { error }),
    );
    this.#queue = logged;
    return options.rejects ? run : logged;
  }
}

/** The thread of an encrypted event: clients keep `m.relates_to` unencrypted, so servers can group threads. */
function threadRootOfEncrypted(event: MatrixEvent): string | undefined {
  const relation = relationOf(isRecord(event.content) ? event.content : {});
  return relation.relType === "m.thread" ? relation.eventId : undefined;
}
