import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessageChunk } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import type { Turn } from "../engine/responder.ts";
import { openStore } from "../store/open-store.ts";
import { createMemory } from "./create-memory.ts";

const KEY = "slack:T1:C2:1700.1";

/** A provider that accepts every call and never answers (and ignores its signal, like a stuck socket). */
class HangingModel extends BaseChatModel {
  calls = 0;
  constructor() {
    super({});
  }
  _llmType(): string {
    return "hanging";
  }
  async _generate(): Promise<ChatResult> {
    this.calls += 1;
    return new Promise<ChatResult>(() => undefined);
  }
  override bindTools(): Runnable<BaseLanguageModelInput, AIMessageChunk> {
    return this as unknown as Runnable<BaseLanguageModelInput, AIMessageChunk>;
  }
}

function turn(text: string): Turn {
  return {
    key: KEY,
    text,
    signal: new AbortController().signal,
    conversation: { platform: "slack", workspace: "T1", channel: "C2", thread: "1700.1" },
    message: { id: "m1", author: { id: "U1" }, text },
  } as unknown as Turn;
}

describe("memory close with a hung model", () => {
  it("cuts the hung call short instead of waiting for it, and still records the turn without the model", async () => {
    const store = await openStore("memory://");
    const model = new HangingModel();
    const memory = createMemory({
      store,
      storeUrl: "memory://",
      checkpointer: new MemorySaver(),
      model,
      // Far longer than the test: only the shutdown signal can end the call.
      modelCalls: { maxAttempts: 4, attemptTimeoutMs: 600_000 },
      closeGraceMs: 50,
      // The turn's two messages make a flush: its call is the one that hangs.
      config: { flushEvery: 2 },
    });
    memory.attach({ conversationState: async () => undefined, replaceHistory: async () => undefined });
    memory.observer.afterDelivery?.(turn("my invoice number is 4711"), { text: "Noted, thanks." });
    await until(() => model.calls >= 1);

    const started = Date.now();
    await memory.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(model.calls).toBe(1);
    const entries = await memory.book.recentEntries(KEY, 10);
    expect(entries.map((entry) => entry.raw)).toContain("my invoice number is 4711");
    await store.close();
  });
});

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not reached within 5 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
