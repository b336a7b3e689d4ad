import {
  type Command,
  invokeWithRetry,
  type Logger,
  type ModelRetryOptions,
  type Responder,
  type Store,
  type ToolCallingChatModel,
  type Turn,
  type TurnAnswer,
} from "@switchboard/core";
import type Keyv from "keyv";

interface StoredMessage {
  readonly role: "user" | "assistant";
  readonly text: string;
}

export interface SingleAgentOptions {
  readonly name: string;
  readonly prompt: string;
  readonly model: ToolCallingChatModel;
  readonly modelDescription: string;
  readonly retry: ModelRetryOptions;
  readonly store: Store;
  readonly logger: Logger;
  /** Messages sent with each call; older ones are dropped, so a conversation's record stays bounded. */
  readonly historyLimit?: number;
}

const DEFAULT_HISTORY_LIMIT = 40;

/**
 * One agent answering every conversation with one model call per message, remembering each
 * conversation's recent messages in the store. It stands in for the agent team until that is wired
 * (see build-app.ts), and offers the same /status and /reset.
 */
export class SingleAgentResponder implements Responder {
  readonly commands: readonly Command[];
  readonly #options: SingleAgentOptions;
  readonly #history: Keyv<StoredMessage[]>;

  constructor(options: SingleAgentOptions) {
    this.#options = options;
    this.#history = options.store.namespace<StoredMessage[]>("single-agent-history");
    this.commands = [
      {
        name: "status",
        summary: "who is answering here, how many messages, which model",
        run: async ({ key }) => {
          const history = (await this.#history.get(key)) ?? [];
          const messages = history.filter((message) => message.role === "user").length;
          return {
            reply: [
              `Answering here: **${options.name}**.`,
              `Messages in this conversation: ${messages}.`,
              `Model: ${options.modelDescription}.`,
            ].join("\n"),
          };
        },
      },
      {
        name: "reset",
        summary: "forget this conversation and start fresh",
        run: async ({ key }) => {
          await this.#history.delete(key);
          return { reply: "Fresh start: this conversation's history is cleared." };
        },
      },
    ];
  }

  async respond(turn: Turn): Promise<TurnAnswer> {
    const { model, prompt, retry, logger, name } = this.#options;
    const history = (await this.#history.get(turn.key)) ?? [];
    // [role, text] pairs: the message form every LangChain chat model accepts.
    const messages: [string, string][] = [
      ["system", prompt],
      ...history.map((message): [string, string] => [message.role === "user" ? "human" : "ai", message.text]),
      ["human", turn.text],
    ];
    const reply = await invokeWithRetry(() => model.invoke(messages, { signal: turn.signal }), {
      ...retry,
      signal: turn.signal,
      onRetry: (event) =>
        logger.warn("model call failed; retrying", {
          attempt: event.attempt,
          kind: event.kind,
          delayMs: event.delayMs,
        }),
    });
    const text = reply.text;
    const limit = this.#options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
    const updated = [
      ...history,
      { role: "user" as const, text: turn.text },
      { role: "assistant" as const, text },
    ];
    await this.#history.set(turn.key, updated.slice(-limit));
    return { text, agent: name };
  }
}
