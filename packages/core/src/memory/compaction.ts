import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { Logger } from "../runtime/logger.ts";
import type { StepSink } from "../steps/step-sink.ts";
import type { ConversationHistory } from "./conversation-history.ts";
import type { MemoryAgent } from "./memory-agent.ts";
import type { Summarizer } from "./summarize.ts";
import { estimateTokens, transcriptOf } from "./transcript.ts";

export interface CompactionPlan {
  /** Older turns, condensed into the session's digest. */
  readonly drop: BaseMessage[];
  /** The newest turns, kept as they are; always starts with a user message. */
  readonly keep: BaseMessage[];
}

/**
 * When the history passes `budgetTokens`, keep the newest whole turns that fit in half the budget
 * (at least the latest turn) and drop the rest. Cuts fall only right before a user message, so a
 * model's tool calls always stay with their results: both belong to the same turn.
 */
export function planCompaction(
  messages: readonly BaseMessage[],
  budgetTokens: number,
): CompactionPlan | undefined {
  const tailTokens: number[] = new Array(messages.length + 1).fill(0);
  for (let i = messages.length - 1; i >= 0; i--)
    tailTokens[i] = (tailTokens[i + 1] ?? 0) + estimateTokens([messages[i] as BaseMessage]);
  if ((tailTokens[0] ?? 0) <= budgetTokens) return undefined;
  const target = Math.floor(budgetTokens / 2);
  let cut: number | undefined;
  for (let i = messages.length - 1; i > 0; i--) {
    if (!HumanMessage.isInstance(messages[i])) continue;
    if (cut !== undefined && (tailTokens[i] ?? 0) > target) break;
    cut = i;
  }
  if (cut === undefined) return undefined;
  return { drop: messages.slice(0, cut), keep: messages.slice(cut) };
}

/** Condenses a long live history: a digest for the agents' context, the recent turns verbatim. */
export class HistoryCompactor {
  readonly #agent: MemoryAgent;
  readonly #summarizer: Summarizer;
  readonly #budgetTokens: number;
  readonly #logger: Logger;

  constructor(options: { agent: MemoryAgent; summarizer: Summarizer; budgetTokens: number; logger: Logger }) {
    this.#agent = options.agent;
    this.#summarizer = options.summarizer;
    this.#budgetTokens = options.budgetTokens;
    this.#logger = options.logger;
  }

  /**
   * True when the history was compacted. Runs in the conversation's memory queue, after a turn.
   * `knownTokens`: the history's size as the turn's answer reported it; under budget, the history
   * is not read at all (most turns).
   */
  async compactIfOverBudget(
    key: string,
    history: ConversationHistory,
    options: { readonly steps?: StepSink | undefined; readonly knownTokens?: number | undefined } = {},
  ): Promise<boolean> {
    if (options.knownTokens !== undefined && options.knownTokens <= this.#budgetTokens) return false;
    const messages = (await history.conversationState(key))?.messages ?? [];
    const plan = planCompaction(messages, this.#budgetTokens);
    if (!plan) return false;
    const live = await this.#agent.session(key);
    // The digest lives with the session; with none live there is nowhere to keep it, and dropping
    // the turns without it would lose them (the next turn starts a session and compacts then).
    if (!live) return false;
    const digest = await this.#summarizer.summarize(transcriptOf(plan.drop), {
      earlierDigest: live.digest ?? undefined,
      steps: options.steps,
    });
    // Digest first: a crash in between leaves the history whole, never the digest missing.
    if (!(await this.#agent.setDigest(key, digest))) return false;
    await history.replaceHistory(key, plan.keep);
    this.#logger.info("live history compacted", {
      key,
      droppedMessages: plan.drop.length,
      keptMessages: plan.keep.length,
      tokensBefore: estimateTokens(messages),
      tokensAfter: estimateTokens(plan.keep),
    });
    return true;
  }
}
