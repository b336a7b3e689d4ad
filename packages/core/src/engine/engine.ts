import type Keyv from "keyv";
import type { Command } from "../commands/command.ts";
import { parseCommand } from "../commands/command.ts";
import { CommandRegistry } from "../commands/registry.ts";
import type { Adapter } from "../conversation/adapter.ts";
import type { InboundMessage } from "../conversation/messages.ts";
import { Deliverer } from "../delivery/deliverer.ts";
import { type Logger, silentLogger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import { isAddressedToBot, type RejectReason, screenMessage } from "./admit.ts";
import { ConversationIndex } from "./conversation-index.ts";
import { encodeWork } from "./queued-work.ts";
import { resolveConversation } from "./resolve.ts";
import type { Continuation, ContinuationHandler, Responder, TurnObserver } from "./responder.ts";
import { ConversationSerializer } from "./serializer.ts";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "./settings.ts";
import { TurnProcessor } from "./turn-processor.ts";

export interface EngineOptions {
  readonly store: Store;
  readonly adapters: readonly Adapter[];
  readonly responder: Responder;
  /** Commands contributed by features (team, memory, requests); /help and /stop are built in. */
  readonly commands?: readonly Command[];
  readonly observers?: readonly TurnObserver[];
  /** Runs queued continuations (follow-up runs, approvals, external results). */
  readonly continuations?: ContinuationHandler;
  readonly settings?: Partial<EngineSettings>;
  readonly logger?: Logger;
}

export type AcceptOutcome = { accepted: true; key: string } | { accepted: false; reason: RejectReason };

/**
 * The path of one message: receive → admit → resolve → serialize → command → route/run → deliver.
 * Each stage lives in its own module; this class only calls them in order.
 */
export class Engine {
  readonly deliverer: Deliverer;
  readonly commands: CommandRegistry;
  readonly settings: EngineSettings;
  readonly #options: EngineOptions;
  readonly #logger: Logger;
  readonly #index: ConversationIndex;
  readonly #serializer: ConversationSerializer;
  readonly #stopFlags: Keyv<boolean>;
  readonly #processor: TurnProcessor;

  constructor(options: EngineOptions) {
    this.#options = options;
    this.settings = { ...DEFAULT_ENGINE_SETTINGS, ...options.settings };
    this.#logger = options.logger ?? silentLogger;
    this.#index = new ConversationIndex(options.store);
    this.#stopFlags = options.store.namespace<boolean>("stop-requests");
    this.deliverer = new Deliverer(options.adapters, this.#index);
    this.commands = new CommandRegistry([...builtInCommands(this), ...(options.commands ?? [])]);
    this.#processor = new TurnProcessor({
      deliverer: this.deliverer,
      commands: this.commands,
      responder: options.responder,
      observers: options.observers ?? [],
      ...(options.continuations ? { continuations: options.continuations } : {}),
      prefixes: this.settings.commandPrefixes,
      logger: this.#logger,
    });
    this.#serializer = new ConversationSerializer({
      atomic: options.store.atomic,
      logger: this.#logger,
      lockTtlMs: this.settings.lockTtlMs,
      policy: this.settings.midRunPolicy,
      work: (key, items, signal) => this.#processor.process(key, items, signal),
      stopRequested: (key) => this.#takeStopRequest(key),
    });
  }

  async start(): Promise<void> {
    for (const adapter of this.#options.adapters) {
      await adapter.start((message) => this.accept(message).then(() => undefined));
      this.#logger.info("adapter started", { platform: adapter.platform });
    }
    const recovered = await this.#serializer.recover();
    if (recovered > 0)
      this.#logger.info("resuming queued work left by the last run", { conversations: recovered });
  }

  /** Finishes or cancels running turns (cancelled ones stay queued for the next start), then stops adapters. */
  async stop(): Promise<void> {
    await this.#serializer.stop();
    for (const observer of this.#options.observers ?? []) await observer.close?.();
    for (const adapter of this.#options.adapters) await adapter.stop();
  }

  /** Resolves when no turn is running or queued in this process. */
  idle(): Promise<void> {
    return this.#serializer.idle();
  }

  /** The inbound sink every adapter calls. */
  async accept(message: InboundMessage): Promise<AcceptOutcome> {
    const screened = screenMessage(message);
    if (screened) return this.#reject(message, screened);

    const resolved = await resolveConversation(message, this.#index);
    // Participation is only looked up when nothing cheaper already addresses the bot.
    const addressed =
      isAddressedToBot(message, { repliesToBot: resolved.repliesToBot, botTakesPart: false }) ||
      (await this.#index.isParticipating(resolved.key));
    if (!addressed) {
      return this.#reject(message, "not-addressed");
    }
    const dedupeKey = `seen:${message.conversation.platform}:${message.id}`;
    if (!(await this.#options.store.atomic.setIfAbsent(dedupeKey, "1", this.settings.dedupeTtlMs))) {
      return this.#reject(message, "duplicate");
    }

    const command = parseCommand(message.text, this.settings.commandPrefixes);
    if (command?.name === "stop") {
      await this.#stop(resolved.key, { ...message, conversation: resolved.conversation });
      return { accepted: true, key: resolved.key };
    }
    const work = encodeWork({
      kind: "message",
      message: { ...message, conversation: resolved.conversation },
    });
    await this.#serializer.submit(resolved.key, work);
    return { accepted: true, key: resolved.key };
  }

  /** Queues work for a conversation behind its current turn; durable, so a restart still runs it. */
  async enqueueContinuation(key: string, continuation: Continuation): Promise<void> {
    await this.#serializer.submit(key, encodeWork({ kind: "continuation", continuation }));
  }

  #reject(message: InboundMessage, reason: RejectReason): AcceptOutcome {
    this.#logger.debug("message not answered", { id: message.id, reason });
    return { accepted: false, reason };
  }

  /** `/stop` skips the queue: it cancels the turn running now, here or on another instance. */
  async #stop(key: string, message: InboundMessage): Promise<void> {
    let reply = "Stopped the current answer.";
    if (!this.#serializer.cancel(key, "stopped by user")) {
      const probe = await this.#options.store.atomic.acquireLock(`lock:${key}`, 1_000);
      if (probe) {
        await this.#options.store.atomic.releaseLock(`lock:${key}`, probe);
        reply = "Nothing is running in this conversation.";
      } else {
        await this.#stopFlags.set(key, true, this.settings.lockTtlMs * 2);
        reply = "Stopping the current answer.";
      }
    }
    await this.deliverer.deliver({ conversation: message.conversation, text: reply, replyTo: message.id });
  }

  async #takeStopRequest(key: string): Promise<boolean> {
    if (!(await this.#stopFlags.get(key))) return false;
    await this.#stopFlags.delete(key);
    return true;
  }
}

function builtInCommands(engine: Engine): Command[] {
  return [
    {
      name: "help",
      summary: "list the commands",
      run: async () => ({ reply: engine.commands.helpText(engine.settings.commandPrefixes[0] ?? "/") }),
    },
    {
      name: "stop",
      summary: "cancel the answer being worked on in this conversation",
      // Handled in `accept`, ahead of the queue; this entry exists for /help.
      run: async () => ({ reply: "Nothing is running in this conversation." }),
    },
  ];
}
