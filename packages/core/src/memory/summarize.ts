import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import { invokeWithRetry, type ModelCallLimits } from "../models/retry.ts";
import type { Logger } from "../runtime/logger.ts";
import { modelNameOf, recordModelCall, type StepSink } from "../steps/step-sink.ts";
import { textOf } from "../team/history.ts";
import { clipMarkdown, firstSentences } from "../text/markdown-clip.ts";
import type { TranscriptLine } from "./archive/archive-store.ts";
import { summaryPrompt } from "./memory-prompts.ts";
import { MEMORY_AGENT } from "./memory-work.ts";

/** A summary longer than this is cut: it goes into every later prompt. */
const MAX_SUMMARY_CHARS = 800;
/** Very long sessions are summarized from their opening and their latest part. */
const HEAD_LINES = 20;
const TAIL_LINES = 100;

/**
 * Two or three sentences from the words themselves, for when no model can summarize: how the
 * user opened, where it ended, how long it was. One message alone: its first sentences.
 */
export function extractiveSummary(lines: readonly TranscriptLine[]): string {
  const first = lines[0];
  if (!first) return "Nothing was said.";
  if (lines.length === 1) return clipMarkdown(firstSentences(first.text, 2), 240);
  const users = lines.filter((line) => line.role === "user");
  const opening = users[0] ?? first;
  const sentences = [`The ${opening.role} opened with: "${quoted(opening.text)}".`];
  const closing = users.length > 1 ? users.at(-1) : undefined;
  if (closing) sentences.push(`Last the user wrote: "${quoted(closing.text)}".`);
  sentences.push(`${lines.length} messages in total.`);
  return sentences.join(" ");
}

/** Summaries for archived sessions and compacted history: the (cheap) model, else extractive. */
export class Summarizer {
  readonly #model: BaseChatModel | undefined;
  readonly #logger: Logger;
  readonly #calls: ModelCallLimits;

  /**
   * Without a model every summary is extractive. `calls` bound the model's calls (a summary is
   * optional: at most 2 attempts), and their signal ends them at shutdown (extractive then).
   */
  constructor(model: BaseChatModel | undefined, logger: Logger, calls: ModelCallLimits = {}) {
    this.#model = model;
    this.#logger = logger;
    this.#calls = calls;
  }

  /**
   * `earlierDigest`: what came before, to fold in. `extractiveFrom`: the words to quote when no
   * model can summarize (default `lines`; a session summarized from its entries quotes its
   * transcript). `steps` (the run-steps log) records the model call as memory's, as the memory graph's are.
   */
  async summarize(
    lines: readonly TranscriptLine[],
    options: {
      readonly earlierDigest?: string | undefined;
      readonly extractiveFrom?: readonly TranscriptLine[];
      readonly steps?: StepSink | undefined;
    } = {},
  ): Promise<string> {
    const { earlierDigest, steps } = options;
    const extractive = () => extractiveWithDigest(options.extractiveFrom ?? lines, earlierDigest);
    const model = this.#model;
    if (!model) return extractive();
    const shown =
      lines.length > HEAD_LINES + TAIL_LINES
        ? [...lines.slice(0, HEAD_LINES), ...lines.slice(-TAIL_LINES)]
        : lines;
    try {
      const reply = await invokeWithRetry(
        (_attempt, signal) =>
          recordModelCall(steps, { agent: MEMORY_AGENT, model: modelNameOf(model) }, () =>
            model.invoke([new HumanMessage(summaryPrompt(shown, earlierDigest))], { signal }),
          ),
        {
          ...this.#calls,
          maxAttempts: Math.min(2, this.#calls.maxAttempts ?? 2),
          onRetry: (event) =>
            this.#logger.warn("summary model call failed; retrying", {
              attempt: event.attempt,
              kind: event.kind,
            }),
        },
      );
      const text = textOf(reply).trim();
      if (text !== "") return clipMarkdown(text, MAX_SUMMARY_CHARS);
      this.#logger.warn("summary model returned nothing; using an extractive summary");
    } catch (error) {
      this.#logger.warn("summary model failed; using an extractive summary", { error });
    }
    return extractive();
  }
}

function extractiveWithDigest(lines: readonly TranscriptLine[], earlierDigest: string | undefined): string {
  const extractive = extractiveSummary(lines);
  return earlierDigest ? clipMarkdown(`${earlierDigest} ${extractive}`, MAX_SUMMARY_CHARS) : extractive;
}

/** The first sentence, without its closing punctuation (the summary's own sentence ends it). */
function quoted(text: string): string {
  return clipMarkdown(firstSentences(text, 1), 140).replace(/[.!?]+$/, "");
}
