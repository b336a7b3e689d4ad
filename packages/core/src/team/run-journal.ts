import { AIMessage, type MessageContent } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import type Keyv from "keyv";
import type { Store } from "../store/types.ts";

/** A model reply that asked for tools, kept so a re-run asks the same tools with the same call ids. */
interface RecordedReply {
  readonly content: MessageContent;
  readonly toolCalls: readonly ToolCall[];
  readonly id?: string;
  readonly name?: string;
}

export type RecordedToolCall =
  | { readonly state: "started" }
  | {
      readonly state: "done";
      readonly content: string;
      readonly status: "success" | "error";
      /** What the tool returned beside its text (files it made), JSON. */
      readonly artifact?: unknown;
    };

interface JournalRecord {
  readonly replies: Readonly<Record<string, RecordedReply>>;
  readonly tools: Readonly<Record<string, RecordedToolCall>>;
}

/** Longer than a run can wait (an approval waits a day): a re-run finds what its first attempt did. */
const JOURNAL_TTL_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * What a run did that must not happen twice: the model replies that asked for tools, and each tool
 * call's start and result, written durably before and after the call. A run started again after a
 * crash (same run id) replays the replies — so the same tool calls come back with the same ids —
 * and reuses recorded results; a call that started but never finished is not repeated blindly.
 * Only runs that call tools write here: a plain answer costs nothing.
 */
export class RunJournal {
  readonly #records: Keyv<JournalRecord>;
  /** The record of each run in progress in this process; one writer per run (the conversation lock). */
  readonly #open = new Map<string, JournalRecord>();

  constructor(store: Store) {
    this.#records = store.namespace<JournalRecord>("run-journal");
  }

  /** Loads what an earlier attempt of this run recorded (only called for resumed runs). */
  async load(runId: string): Promise<void> {
    this.#open.set(runId, (await this.#records.get(runId)) ?? { replies: {}, tools: {} });
  }

  /** Forgets the in-process copy when the run ends (the stored record expires by itself). */
  release(runId: string): void {
    this.#open.delete(runId);
  }

  reply(runId: string, index: number): AIMessage | undefined {
    const recorded = this.#open.get(runId)?.replies[String(index)];
    if (!recorded) return undefined;
    return new AIMessage({
      content: recorded.content,
      tool_calls: [...recorded.toolCalls],
      ...(recorded.id ? { id: recorded.id } : {}),
      ...(recorded.name ? { name: recorded.name } : {}),
    });
  }

  async recordReply(runId: string, index: number, message: AIMessage): Promise<void> {
    const reply: RecordedReply = {
      content: message.content,
      toolCalls: message.tool_calls ?? [],
      ...(message.id ? { id: message.id } : {}),
      ...(message.name ? { name: message.name } : {}),
    };
    const record = this.#record(runId);
    await this.#save(runId, { ...record, replies: { ...record.replies, [String(index)]: reply } });
  }

  toolCall(runId: string, callId: string): RecordedToolCall | undefined {
    return this.#open.get(runId)?.tools[callId];
  }

  async recordToolCall(runId: string, callId: string, call: RecordedToolCall): Promise<void> {
    const record = this.#record(runId);
    await this.#save(runId, { ...record, tools: { ...record.tools, [callId]: call } });
  }

  #record(runId: string): JournalRecord {
    return this.#open.get(runId) ?? { replies: {}, tools: {} };
  }

  async #save(runId: string, record: JournalRecord): Promise<void> {
    await this.#records.set(runId, record, JOURNAL_TTL_MS);
    this.#open.set(runId, record);
  }
}
