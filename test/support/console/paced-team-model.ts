import { setTimeout as sleep } from "node:timers/promises";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";

/**
 * The scripted team as a model that streams the way providers do: a text answer word by word at a
 * set pace, a tool call as one chunk. Tools it is bound to change nothing: the script decides.
 */
export class PacedTeamModel extends BaseChatModel {
  readonly #answer: (messages: BaseMessage[]) => AIMessage;
  readonly #paceMs: number;

  constructor(answer: (messages: BaseMessage[]) => AIMessage, paceMs: number) {
    super({});
    this.#answer = answer;
    this.#paceMs = paceMs;
  }

  _llmType(): string {
    return "paced-team";
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = this.#answer(messages);
    return { generations: [{ text: message.text, message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const message = this.#answer(messages);
    const usage = message.usage_metadata ? { usage_metadata: message.usage_metadata } : {};
    const calls = message.tool_calls ?? [];
    if (calls.length > 0) {
      yield new ChatGenerationChunk({
        text: "",
        message: new AIMessageChunk({
          content: "",
          tool_call_chunks: calls.map((call, index) => ({
            type: "tool_call_chunk" as const,
            name: call.name,
            args: JSON.stringify(call.args),
            ...(call.id ? { id: call.id } : {}),
            index,
          })),
          ...usage,
        }),
      });
      return;
    }
    const words = message.text.split(/(?<= )/);
    for (const [index, word] of words.entries()) {
      await sleep(this.#paceMs, undefined, options.signal ? { signal: options.signal } : {});
      const last = index === words.length - 1;
      yield new ChatGenerationChunk({
        text: word,
        message: new AIMessageChunk({ content: word, ...(last ? usage : {}) }),
      });
      await runManager?.handleLLMNewToken(word);
    }
  }
}
