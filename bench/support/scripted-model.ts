import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { AIMessage, AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";

/** What the model was asked to do, summed over its calls (shared by every binding of one model). */
export interface ModelCallStats {
  calls: number;
  /** Milliseconds spent inside the model itself: its simulated latency plus building its answer. */
  busyMs: number;
}

export type ModelScript = (messages: BaseMessage[]) => AIMessage;

export interface ScriptedModelOptions {
  /** Simulated provider latency per call; 0 is an instant model. */
  readonly latencyMs?: number;
  /** Sees every prompt (prompt-size measurements); kept out of busyMs only by being cheap. */
  readonly onCall?: (messages: BaseMessage[]) => void;
}

/**
 * A chat model whose answer is a function of the prompt, forever (LangChain's fakeModel needs a
 * queued answer per call and keeps every prompt, which 100,000 calls cannot afford).
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly stats: ModelCallStats = { calls: 0, busyMs: 0 };
  readonly #script: ModelScript;
  readonly #latencyMs: number;
  readonly #onCall: ((messages: BaseMessage[]) => void) | undefined;

  constructor(script: ModelScript, options: ScriptedModelOptions = {}) {
    super({});
    this.#script = script;
    this.#latencyMs = options.latencyMs ?? 0;
    this.#onCall = options.onCall;
  }

  _llmType(): string {
    return "bench-scripted";
  }

  /** Tools change nothing: the script decides. Bound copies share the stats. */
  override bindTools(
    _tools: BindToolsInput[],
    kwargs?: Partial<BaseChatModelCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, BaseChatModelCallOptions> {
    return this.withConfig({ ...kwargs });
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const started = performance.now();
    if (this.#latencyMs > 0) await sleep(this.#latencyMs, options.signal);
    this.#onCall?.(messages);
    const message = this.#script(messages);
    this.stats.calls += 1;
    this.stats.busyMs += performance.now() - started;
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
