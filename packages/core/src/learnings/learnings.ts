import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import type { Clock } from "../runtime/clock.ts";
import type { Store } from "../store/types.ts";
import { Identities } from "./identities.ts";
import { composeLearnings } from "./learning-prompt.ts";
import { type Learning, LearningStore } from "./learning-store.ts";
import type { LearningScope, LearningsConfig } from "./learnings-config.ts";
import { subjectsOf, type TurnSubjects } from "./subjects.ts";

export const REMEMBER = "remember";
export const FORGET_LEARNING = "forget_learning";

const MAX_TEXT = 300;

export interface LearningsOptions {
  readonly store: Store;
  readonly config: LearningsConfig;
  readonly identities?: Identities;
  readonly clock: Clock;
}

/** A learning and what it is about, as /learnings and the console show it. */
export interface ListedLearning extends Learning {
  /** The person (`slack:U0ALICE`, `person:ana`), conversation key or place key. */
  readonly subject: string;
}

/**
 * Short facts agents keep on purpose, per person, conversation or place, and what a turn's
 * prompt carries of them. Who a learning is about always comes from the run or the command
 * (the asking user, the conversation it is in), never from the model: no prompt can make an agent
 * read or delete another person's learnings.
 */
export class Learnings {
  readonly config: LearningsConfig;
  readonly store: LearningStore;
  readonly #identities: Identities;
  readonly #clock: Clock;

  constructor(options: LearningsOptions) {
    this.config = options.config;
    this.store = new LearningStore(options.store, { maxPerSubject: options.config.maxPerSubject });
    this.#identities = options.identities ?? new Identities();
    this.#clock = options.clock;
  }

  subjectsOf(key: string, userId: string): TurnSubjects {
    return subjectsOf(key, userId, this.#identities);
  }

  /** The prompt section for a turn (once per run: one store read), or undefined when nothing is kept. */
  async promptFor(key: string, userId: string): Promise<string | undefined> {
    if (!this.config.enabled) return undefined;
    const lists = await this.store.of(this.subjectsOf(key, userId), this.config.scopes);
    const section = composeLearnings(lists, this.config.tokenBudget);
    return section === "" ? undefined : section;
  }

  /** What the asking user may see here: their own, this conversation's and this place's. */
  async visibleTo(key: string, userId: string): Promise<ListedLearning[]> {
    const subjects = this.subjectsOf(key, userId);
    const lists = await this.store.of(subjects, this.config.scopes);
    return this.config.scopes.flatMap((scope) =>
      (lists[scope] ?? []).map((learning) => ({ ...learning, subject: subjects[scope] })),
    );
  }

  async remember(key: string, userId: string, scope: LearningScope, text: string) {
    if (!this.config.scopes.includes(scope))
      throw new Error(`learnings about the ${scope} are not allowed here (memory.learnings.scopes)`);
    return this.store.add(this.subjectsOf(key, userId), {
      scope,
      text: text.trim().slice(0, MAX_TEXT),
      by: userId,
      in: key,
      at: this.#clock.now(),
    });
  }

  /** Deletes one of the learnings the user may see here; undefined when no such id is theirs to delete. */
  forget(key: string, userId: string, id: string): Promise<Learning | undefined> {
    return this.store.remove(this.subjectsOf(key, userId), this.config.scopes, id);
  }

  /** `/reset`: the conversation's own learnings go (the person's and the place's stay). */
  async clearConversation(key: string, userId: string): Promise<number> {
    if (!this.config.enabled || !this.config.scopes.includes("conversation")) return 0;
    return this.store.clear(this.subjectsOf(key, userId), "conversation");
  }

  /** `remember` and `forget_learning` for agents (none when learnings are off). */
  tools(): StructuredToolInterface[] {
    if (!this.config.enabled) return [];
    const scopes = this.config.scopes as [LearningScope, ...LearningScope[]];
    const remember = tool(
      async ({ text, scope }, config) => {
        const { key, userId } = runOf(config, REMEMBER);
        const { learning, dropped, repeated } = await this.remember(key, userId, scope, text);
        if (repeated) return `Already kept as [${learning.id}].`;
        const went =
          dropped.length > 0 ? ` The oldest (${dropped.map((d) => d.id).join(", ")}) made room.` : "";
        return `Kept as [${learning.id}] (${scope}). The person can see it with /learnings and delete it with /forget ${learning.id}.${went}`;
      },
      {
        name: REMEMBER,
        description:
          "Keep a short fact for later turns, on purpose: a preference, a standing instruction, a detail the person asked you to remember. " +
          "It is added to every prompt of its scope from the next message on. Do not keep secrets, passwords or one-off details.",
        schema: z.object({
          text: z
            .string()
            .min(1)
            .max(MAX_TEXT)
            .describe("The fact, in one short sentence ('Prefers invoices in EUR')."),
          scope: z
            .enum(scopes)
            .default(scopes.includes("user") ? "user" : scopes[0])
            .describe(
              `Who or what it is about: ${scopes.map((scope) => `'${scope}'`).join(", ")} (user: the person, in every thread; conversation: this thread; place: this channel or room, for everyone in it).`,
            ),
        }),
        // Keeping the same fact twice keeps it once.
        metadata: { acceptsIdempotencyKey: true },
      },
    );
    const forget = tool(
      async ({ id }, config) => {
        const { key, userId } = runOf(config, FORGET_LEARNING);
        const gone = await this.forget(key, userId, id);
        return gone ? `Deleted [${gone.id}]: ${gone.text}` : `No learning [${id}] here to delete.`;
      },
      {
        name: FORGET_LEARNING,
        description:
          "Delete a learning (by the id in brackets in your learnings) that is wrong, outdated, or that the person asks you to forget.",
        schema: z.object({ id: z.string().min(1).describe("The learning's id, e.g. 'k3f9q'.") }),
        metadata: { acceptsIdempotencyKey: true },
      },
    );
    return [remember, forget];
  }
}

function runOf(config: RunnableConfig | undefined, name: string): { key: string; userId: string } {
  const key: unknown = config?.configurable?.thread_id;
  const userId: unknown = config?.configurable?.user_id;
  if (typeof key !== "string" || key === "" || typeof userId !== "string" || userId === "")
    throw new Error(`${name} needs the conversation and the user of the run`);
  return { key, userId };
}
