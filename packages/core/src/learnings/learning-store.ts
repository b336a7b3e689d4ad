import { randomInt } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type Keyv from "keyv";
import type { SortedSets } from "../store/sorted-sets.ts";
import type { AtomicStore, Store } from "../store/types.ts";
import type { LearningScope } from "./learnings-config.ts";
import { subjectKey, type TurnSubjects } from "./subjects.ts";

/** One short fact an agent keeps on purpose. */
export interface Learning {
  /** Short, so a person can type it: `/forget k3f9q`. */
  readonly id: string;
  readonly scope: LearningScope;
  readonly text: string;
  /** The platform user id of whoever the fact was learnt from. */
  readonly by: string;
  /** Where it was learnt (the conversation key). */
  readonly in: string;
  readonly at: number;
}

/** What `add` did: the learning kept (or the equal one already there), and any that made room. */
export interface AddedLearning {
  readonly learning: Learning;
  readonly dropped: readonly Learning[];
  readonly repeated: boolean;
}

/** Someone else is changing the same learnings and kept them locked too long. */
export class LearningsBusyError extends Error {
  constructor(subject: string) {
    super(`the learnings of ${subject} are being changed; try again`);
    this.name = "LearningsBusyError";
  }
}

const LOCK_TTL_MS = 5_000;
const LOCK_ATTEMPTS = 40;
/** Subjects with learnings by when they last changed: what the console lists, never a scan. */
const SUBJECTS = "learnings:subjects";
const ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";

/**
 * Learnings in the store, one record per subject (a person, a conversation, a place) holding its
 * list, newest last. A turn's prompt needs at most three subjects, read with one `getMany`: one
 * store read per turn whatever the number of learnings. Writes are rare (an agent's `remember`, a
 * person's `/forget`) and go through the subject's lock, so two threads remembering about the same
 * person at once both keep theirs. Works on every store backend: it uses only keyv and the lock.
 */
export class LearningStore {
  readonly #records: Keyv<Learning[]>;
  readonly #atomic: AtomicStore;
  readonly #sets: SortedSets;
  readonly #maxPerSubject: number;

  constructor(store: Store, options: { maxPerSubject: number }) {
    this.#records = store.namespace<Learning[]>("learnings");
    this.#atomic = store.atomic;
    this.#sets = store.sortedSets;
    this.#maxPerSubject = options.maxPerSubject;
  }

  /** The learnings of the given scopes of a turn, each list oldest first: one store read. */
  async of(
    subjects: TurnSubjects,
    scopes: readonly LearningScope[],
  ): Promise<Partial<Record<LearningScope, Learning[]>>> {
    if (scopes.length === 0) return {};
    const found = await this.#records.getMany(scopes.map((scope) => subjectKey(scope, subjects)));
    const result: Partial<Record<LearningScope, Learning[]>> = {};
    scopes.forEach((scope, index) => {
      result[scope] = found[index] ?? [];
    });
    return result;
  }

  /** Keeps a fact about one subject of the turn; the oldest goes past `maxPerSubject`. An equal text is not kept twice. */
  async add(subjects: TurnSubjects, learning: Omit<Learning, "id">): Promise<AddedLearning> {
    return this.#change<AddedLearning>(subjectKey(learning.scope, subjects), (list) => {
      const same = list.find((kept) => normalized(kept.text) === normalized(learning.text));
      if (same) return { list, result: { learning: same, dropped: [], repeated: true } };
      const taken = new Set(list.map((kept) => kept.id));
      const added: Learning = { ...learning, id: freshId(taken) };
      const grown = [...list, added];
      const dropped = grown.slice(0, Math.max(0, grown.length - this.#maxPerSubject));
      return {
        list: grown.slice(dropped.length),
        result: { learning: added, dropped, repeated: false },
      };
    });
  }

  /** Deletes the learning `id` if it is one of the turn's subjects' (never anyone else's); returns it. */
  async remove(
    subjects: TurnSubjects,
    scopes: readonly LearningScope[],
    id: string,
  ): Promise<Learning | undefined> {
    const wanted = id.trim().toLowerCase();
    const lists = await this.of(subjects, scopes);
    const scope = scopes.find((candidate) => lists[candidate]?.some((kept) => kept.id === wanted));
    if (!scope) return undefined;
    return this.#change(subjectKey(scope, subjects), (list) => {
      const gone = list.find((kept) => kept.id === wanted);
      return gone
        ? { list: list.filter((kept) => kept.id !== wanted), result: gone }
        : { list, result: undefined };
    });
  }

  /** Deletes every learning of one subject of the turn; returns how many went. */
  async clear(subjects: TurnSubjects, scope: LearningScope): Promise<number> {
    return this.#change(subjectKey(scope, subjects), (list) => ({ list: [], result: list.length }));
  }

  /** Subjects with learnings, the most recently changed first, at most `limit` (the console). */
  async listing(limit: number): Promise<Array<{ subject: string; learnings: Learning[] }>> {
    // Scored by minus the newest learning's time: the set's low end is the most recent.
    const newest = (await this.#sets.upTo(SUBJECTS, Number.POSITIVE_INFINITY, limit)).map(
      (entry) => entry.member,
    );
    if (newest.length === 0) return [];
    const lists = await this.#records.getMany(newest);
    return newest.flatMap((subject, index) => {
      const learnings = lists[index];
      return learnings && learnings.length > 0 ? [{ subject, learnings }] : [];
    });
  }

  /** Deletes the learning `id` of the subject the console names (`user:slack:U0ALICE`…): the operator's delete. */
  async removeFrom(subject: string, id: string): Promise<Learning | undefined> {
    return this.#change(subject, (list) => {
      const gone = list.find((kept) => kept.id === id);
      return gone
        ? { list: list.filter((kept) => kept.id !== id), result: gone }
        : { list, result: undefined };
    });
  }

  async #change<T>(key: string, change: (list: Learning[]) => { list: Learning[]; result: T }): Promise<T> {
    const lockKey = `learnings-lock:${key}`;
    let token: string | null = null;
    for (let attempt = 0; attempt < LOCK_ATTEMPTS && !token; attempt++) {
      token = await this.#atomic.acquireLock(lockKey, LOCK_TTL_MS);
      if (!token) await sleep(10 + attempt * 10);
    }
    if (!token) throw new LearningsBusyError(key);
    try {
      const before = (await this.#records.get(key)) ?? [];
      const { list, result } = change(before);
      if (list !== before) {
        if (list.length === 0) await this.#records.delete(key);
        else await this.#records.set(key, list);
        await this.#sets.apply([
          {
            set: SUBJECTS,
            member: key,
            score: list.length === 0 ? null : -Math.max(...list.map((kept) => kept.at)),
          },
        ]);
      }
      return result;
    } finally {
      await this.#atomic.releaseLock(lockKey, token).catch(() => false);
    }
  }
}

function normalized(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ");
}

/** Five letters and digits, none easily misread (no l, o, 0, 1): unique within the subject's list. */
function freshId(taken: ReadonlySet<string>): string {
  for (;;) {
    const id = Array.from({ length: 5 }, () => ID_ALPHABET[randomInt(ID_ALPHABET.length)]).join("");
    if (!taken.has(id)) return id;
  }
}
