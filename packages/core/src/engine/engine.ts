import type { AccessGate } from "../access/access-gate.ts";
import type { EndpointState } from "../capacity/endpoint-limiter.ts";
import type { Command } from "../commands/command.ts";
import { CommandRegistry } from "../commands/registry.ts";
import type { Adapter } from "../conversation/adapter.ts";
import type { ApprovalDecider } from "../conversation/approvals.ts";
import type { TeamIdentities } from "../conversation/identity.ts";
import type { InboundMessage } from "../conversation/messages.ts";
import { Deliverer, type DeliveryObserver, type OpenFile } from "../delivery/deliverer.ts";
import { RecoveryLoop, type RecoveryReport } from "../health/recovery-loop.ts";
import type { WaitReason } from "../health/wait-reasons.ts";
import { Notices } from "../outbox/notices.ts";
import { Outbox } from "../outbox/outbox.ts";
import type { DeliveryRetryPolicy } from "../outbox/retry-delivery.ts";
import { runAsIntake } from "../runtime/event-loop.ts";
import { type Logger, silentLogger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import { StreamRecords } from "../streaming/stream-records.ts";
import { commandPrefixFor } from "./command-prefix.ts";
import { ConversationIndex } from "./conversation-index.ts";
import { EngineStoppingError } from "./errors.ts";
import { type AcceptOutcome, Intake } from "./intake.ts";
import { StoreUnavailableError, withIntakeDeadline } from "./intake-deadline.ts";
import type { LaterRetries } from "./later-retries.ts";
import { decodeWork, encodeWork, workIdOf } from "./queued-work.ts";
import type { Continuation, ContinuationHandler, Responder, TurnObserver } from "./responder.ts";
import {
  ConversationSerializer,
  type DrainScheduler,
  type ScheduledDrainOutcome,
  type SerializerHealth,
} from "./serializer.ts";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "./settings.ts";
import { StopRequests } from "./stop-requests.ts";
import { type ReadAttachments, TurnProcessor } from "./turn-processor.ts";

export interface EngineOptions {
  readonly store: Store;
  readonly adapters: readonly Adapter[];
  readonly responder: Responder;
  /** Commands contributed by features (team, memory, requests); /help and /stop are built in. */
  readonly commands?: readonly Command[];
  readonly observers?: readonly TurnObserver[];
  /** Decides Approve / Deny presses on the platforms' buttons and reactions (request tracking's gate). */
  readonly approvals?: ApprovalDecider;
  /** Who may talk to the bot (`access:`), checked before anything is queued; absent: everyone. */
  readonly access?: AccessGate;
  /** Runs queued continuations (follow-up runs, approvals, external results). */
  readonly continuations?: ContinuationHandler;
  readonly settings?: Partial<EngineSettings>;
  /** How posting an answer is retried before it is given up (and shown in /status). */
  readonly deliveryRetry?: DeliveryRetryPolicy;
  readonly logger?: Logger;
  /** Hears every delivery's outcome (run-steps log, metrics). */
  readonly deliveryObserver?: DeliveryObserver;
  /** Hears every message's intake outcome (metrics). */
  readonly onAccept?: (outcome: AcceptOutcome, message: InboundMessage) => void;
  /**
   * Scale-out: queued work is handed to this scheduler (a job queue) instead of drained here, and
   * the recovery loop runs only when the cluster asks (`runRecoveryRound`), once per cluster.
   */
  readonly scheduler?: DrainScheduler;
  /**
   * The model endpoints' limits and lines (ModelEndpoints.states): a conversation waiting for one
   * is reported as such, and /health shows them.
   */
  readonly modelEndpoints?: () => readonly EndpointState[];
  /** Reads the files people send (core/attachments); absent: attachments are ignored. */
  readonly readAttachments?: ReadAttachments;
  /** Opens the bytes of files the team sends (the blob store); absent: files are announced by name. */
  readonly openFile?: OpenFile;
  /** Tries turns the model could not answer again later (retry-later/); absent: the user is told to retry. */
  readonly laterRetries?: LaterRetries;
  /** How the team's agents show themselves (their `display`); absent: every answer speaks as the bot. */
  readonly identities?: TeamIdentities;
}

export interface EngineHealth extends SerializerHealth {
  readonly accepting: boolean;
  /** The recovery loop's last look at the queues (absent before its first round). */
  readonly queues: RecoveryReport | undefined;
  /** Each model endpoint called so far: its adaptive limit, calls in flight and in line. */
  readonly modelEndpoints: readonly EndpointState[];
}

/**
 * The path of one message: receive → admit → resolve → serialize → command → route/run → deliver.
 * Each stage lives in its own module; this class only calls them in order.
 */
export class Engine {
  readonly deliverer: Deliverer;
  readonly outbox: Outbox;
  /** Posts that answer no queued work (`/stop` replies, request notices), through the outbox. */
  readonly notices: Notices;
  readonly commands: CommandRegistry;
  readonly settings: EngineSettings;
  readonly #options: EngineOptions;
  readonly #logger: Logger;
  readonly #index: ConversationIndex;
  readonly #serializer: ConversationSerializer;
  readonly #stops: StopRequests;
  readonly #intake: Intake;
  readonly #processor: TurnProcessor;
  readonly #recovery: RecoveryLoop;
  #accepting = true;
  /** The start's look for pending notices, awaited by `stop` (it posts through the adapters). */
  #startupNotices: Promise<void> | undefined;

  constructor(options: EngineOptions) {
    this.#options = options;
    this.settings = { ...DEFAULT_ENGINE_SETTINGS, ...options.settings };
    this.#logger = options.logger ?? silentLogger;
    this.#index = new ConversationIndex(options.store);
    this.deliverer = new Deliverer(options.adapters, this.#index, {
      typingDelayMs: this.settings.typingDelayMs,
      ...(options.deliveryObserver ? { observer: options.deliveryObserver } : {}),
      streams: new StreamRecords(options.store),
      prompts: options.store.namespace("approval-prompts"),
      ...(options.openFile ? { openFile: options.openFile } : {}),
      ...(options.identities ? { identities: options.identities } : {}),
    });
    this.outbox = new Outbox({
      store: options.store,
      deliverer: this.deliverer,
      logger: this.#logger,
      ...(options.deliveryRetry ? { retry: options.deliveryRetry } : {}),
    });
    this.notices = new Notices({
      store: options.store,
      outbox: this.outbox,
      logger: this.#logger,
      lockTtlMs: this.settings.lockTtlMs,
    });
    this.commands = new CommandRegistry([...builtInCommands(this), ...(options.commands ?? [])]);
    // Before any adapter starts: native command forms (slash commands…) cover every command.
    for (const adapter of options.adapters) {
      adapter.useCommands?.(this.commands.list());
      if (options.approvals) adapter.useApprovals?.(options.approvals);
      if (options.identities) adapter.useIdentities?.(options.identities);
    }
    this.#processor = new TurnProcessor({
      deliverer: this.deliverer,
      outbox: this.outbox,
      commands: this.commands,
      responder: options.responder,
      observers: options.observers ?? [],
      ...(options.continuations ? { continuations: options.continuations } : {}),
      prefixes: this.settings.commandPrefixes,
      prefixFor: (platform) => commandPrefixFor(platform, options.adapters, this.settings.commandPrefixes),
      logger: this.#logger,
      ...(options.readAttachments ? { readAttachments: options.readAttachments } : {}),
      ...(options.laterRetries ? { laterRetries: options.laterRetries } : {}),
    });
    this.#serializer = new ConversationSerializer({
      atomic: options.store.atomic,
      logger: this.#logger,
      lockTtlMs: this.settings.lockTtlMs,
      policy: this.settings.midRunPolicy,
      maxConcurrentTurns: this.settings.maxConcurrentTurns,
      cpuSlots: this.settings.cpuSlots,
      maxTurnMs: this.settings.maxTurnMs,
      work: (key, items, signal) => this.#processor.process(key, items, signal),
      stopRequested: (key) => this.#stops.take(key),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    });
    this.#stops = new StopRequests({
      store: options.store,
      serializer: this.#serializer,
      notices: this.notices,
      laterRetries: options.laterRetries,
      lockTtlMs: this.settings.lockTtlMs,
    });
    this.#intake = new Intake({
      store: options.store,
      adapters: options.adapters,
      index: this.#index,
      serializer: this.#serializer,
      notices: this.notices,
      stops: this.#stops,
      access: options.access,
      settings: this.settings,
      logger: this.#logger,
    });
    this.#recovery = new RecoveryLoop({
      scan: {
        recover: async () => {
          await this.#deliverPendingNotices();
          return this.#serializer.recover();
        },
        queueAges: async () => {
          const now = Date.now();
          return (await this.#serializer.queueHeads()).map(({ key, head }) => ({
            key,
            ageMs: now - decodeWork(head.item).enqueuedAt,
          }));
        },
        whyWaiting: (key) => this.#whyWaiting(key),
      },
      logger: this.#logger,
      intervalMs: Math.min(this.settings.recoveryIntervalMs, this.settings.lockTtlMs / 2),
      staleAfterMs: this.settings.lockTtlMs * 2,
      lockTtlMs: this.settings.lockTtlMs,
    });
  }

  async start(): Promise<void> {
    for (const adapter of this.#options.adapters) {
      await adapter.start((message) =>
        this.accept(message).then((outcome) => this.#options.onAccept?.(outcome, message)),
      );
      this.#logger.info("adapter started", { platform: adapter.platform });
    }
    const recovered = await this.#serializer.recover();
    if (recovered.length > 0)
      this.#logger.info("resuming queued work left by the last run", { conversations: recovered.length });
    if (!this.#options.scheduler) this.#recovery.start();
    // Notices a crashed process recorded and did not post; the recovery loop keeps looking.
    this.#startupNotices = this.#deliverPendingNotices();
  }

  async #deliverPendingNotices(): Promise<void> {
    await this.notices
      .deliverPending()
      .catch((error: unknown) => this.#logger.warn("could not post pending notices", { error }));
  }

  /** Scale-out: drains one conversation's queue in this process, as the scheduler asked. */
  drainScheduled(key: string): Promise<ScheduledDrainOutcome> {
    return this.#serializer.drainScheduled(key);
  }

  /** Scale-out: how many items wait in the conversation's queue. */
  queuedWork(key: string): Promise<number> {
    return this.#serializer.queued(key);
  }

  /** Scale-out: one round of the recovery loop (announces queued work, reports queue ages). */
  runRecoveryRound(): Promise<RecoveryReport> {
    return this.#recovery.runOnce();
  }

  /**
   * Stops taking messages first (adapters answer the platform so it redelivers them), then finishes
   * or cancels running turns (cancelled ones stay queued for the next start), then stops adapters.
   */
  async stop(): Promise<void> {
    this.#accepting = false;
    await this.#startupNotices;
    await this.#recovery.stop();
    await this.#serializer.stop();
    for (const observer of this.#options.observers ?? []) await observer.close?.();
    for (const adapter of this.#options.adapters) await adapter.stop();
  }

  /** Resolves when no turn is running or queued in this process. */
  idle(): Promise<void> {
    return this.#serializer.idle();
  }

  health(): EngineHealth {
    return {
      ...this.#serializer.health(),
      accepting: this.#accepting,
      queues: this.#recovery.lastReport,
      modelEndpoints: this.#options.modelEndpoints?.() ?? [],
    };
  }

  #whyWaiting(key: string): WaitReason {
    const serializer = this.#serializer;
    if (serializer.isWaitingToStart(key)) {
      const health = serializer.health();
      return {
        kind: "turn-start",
        admission: {
          turnsInProgress: health.runningTurns,
          maxTurns: health.maxTurns,
          cpu: health.cpuSlots,
          eventLoop: health.eventLoop,
        },
      };
    }
    if (serializer.isRunning(key)) {
      const endpoint = this.#options
        .modelEndpoints?.()
        .find((state) => state.waitingConversations.includes(key));
      return endpoint ? { kind: "model-endpoint", endpoint } : { kind: "turn-running" };
    }
    return serializer.isWaitingForLock(key) ? { kind: "lock-elsewhere" } : { kind: "unclaimed" };
  }

  /**
   * The inbound sink every adapter calls. Resolves once the message is durably queued (or judged
   * not ours to answer); rejects when it cannot be taken now — stopping, store unreachable — and
   * then nothing was marked seen, so the platform's redelivery is accepted later.
   */
  accept(message: InboundMessage): Promise<AcceptOutcome> {
    // Ahead of running turns: a platform is waiting for this message's acknowledgement.
    return runAsIntake(async () => {
      try {
        if (!this.#accepting) throw new EngineStoppingError();
        return await withIntakeDeadline(this.#intake.accept(message), this.settings.intakeDeadlineMs);
      } catch (error) {
        if (error instanceof StoreUnavailableError)
          this.#logger.warn("message not accepted: the store is unavailable", { id: message.id, error });
        throw error;
      }
    });
  }

  /** Queues work for a conversation behind its current turn; durable, so a restart still runs it. */
  async enqueueContinuation(key: string, continuation: Continuation): Promise<boolean> {
    const work = { kind: "continuation" as const, continuation };
    const now = Date.now();
    // A named continuation is queued once, even when whoever queues it runs again after a crash.
    const dedupe =
      continuation.id === undefined
        ? undefined
        : { key: `continuation:${workIdOf(work)}`, ttlMs: this.settings.dedupeTtlMs };
    return this.#serializer.submit(key, encodeWork(work, now), now, dedupe);
  }
}

function builtInCommands(engine: Engine): Command[] {
  return [
    {
      name: "help",
      summary: "list the commands",
      run: async ({ prefix }) => ({ reply: engine.commands.helpText(prefix) }),
    },
    {
      name: "stop",
      summary: "cancel the answer being worked on (or waiting for the model) in this conversation",
      // Handled in `accept`, ahead of the queue; this entry exists for /help.
      run: async () => ({ reply: "Nothing is running in this conversation." }),
    },
  ];
}
