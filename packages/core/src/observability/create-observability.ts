import type { Command } from "../commands/command.ts";
import { encodeConversationKey } from "../conversation/ref.ts";
import type { DeliveryObserver } from "../delivery/deliverer.ts";
import type { ContinuationHandler, Responder, TurnObserver } from "../engine/responder.ts";
import type { MemoryWorkRecorder } from "../memory/memory-work.ts";
import type { SwitchboardMetrics } from "../metrics/switchboard-metrics.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { RunIdentity } from "../steps/run-step.ts";
import { RunStepsLog } from "../steps/run-steps-log.ts";
import {
  newRunId,
  type RunRecording,
  type StepListener,
  StepRecorder,
  type TeamRunContext,
} from "../steps/step-recorder.ts";
import type { StepsConfig } from "../steps/steps-config.ts";
import type { Store } from "../store/types.ts";
import { LimitedResponder } from "../usage/limited-responder.ts";
import { PriceTable } from "../usage/price-table.ts";
import { UsageBook } from "../usage/usage-book.ts";
import { usageCommand } from "../usage/usage-command.ts";
import type { UsageConfig } from "../usage/usage-config.ts";
import { UsageLimits } from "../usage/usage-limits.ts";
import { usageListener } from "../usage/usage-listener.ts";
import { logListener } from "./log-listener.ts";
import { ObservedResponder } from "./observed-responder.ts";

export interface ObservabilityOptions {
  readonly store: Store;
  readonly steps: StepsConfig;
  readonly usage: UsageConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Present when the HTTP server runs: `/metrics`. */
  readonly metrics?: SwitchboardMetrics | undefined;
}

/** Everything that records what the team does and what it costs, ready to hand to the pieces. */
export interface Observability {
  readonly steps: RunStepsLog | undefined;
  readonly usage: UsageBook | undefined;
  readonly prices: PriceTable;
  readonly metrics: SwitchboardMetrics | undefined;
  /** Team `stepsFor`: records one team run. */
  readonly teamSteps: ((context: TeamRunContext) => RunRecording) | undefined;
  /** Memory's `recorder`. */
  readonly memoryWork: MemoryWorkRecorder | undefined;
  /**
   * Records the model calls of a run that goes on over time (a background task's steps, in any
   * process): its totals keep growing across steps and restarts. Undefined when steps are off.
   */
  readonly longRun: ((run: RunIdentity) => Promise<RunRecording>) | undefined;
  /** The sentence refusing more work to a user or conversation over a daily cap; undefined when under. */
  usageRefusal(userId: string, conversationKey: string): Promise<string | undefined>;
  /** Engine `deliveryObserver`. */
  readonly deliveryObserver: DeliveryObserver;
  /** Engine `observers` to add. */
  readonly observers: readonly TurnObserver[];
  /** `/usage`. */
  readonly commands: readonly Command[];
  /** Wraps the responder: limits first, then log context and timing. */
  observe(responder: Responder & ContinuationHandler): Responder & ContinuationHandler;
  /** Wraps commands so each is a run of its own in the steps log. */
  recordCommands(commands: readonly Command[]): Command[];
  /** Resolves when every step and usage write so far is done. */
  flushed(): Promise<void>;
}

export function createObservability(options: ObservabilityOptions): Observability {
  const { store, clock, logger, metrics } = options;
  const prices = new PriceTable(options.usage.prices);
  /** Models already reported as having no price (once each per process). */
  const unpriced = new Set<string>();
  const enabled = options.steps.enabled;
  const usage = enabled
    ? new UsageBook(store, { retentionDays: options.usage.retentionDays, clock })
    : undefined;
  const listeners: StepListener[] = [logListener(logger)];
  if (usage) listeners.push(usageListener(usage, logger, () => clock.now()));
  if (metrics) listeners.push(metrics.stepListener);
  const log = enabled
    ? new RunStepsLog(store, { retentionDays: options.steps.retentionDays, clock, logger })
    : undefined;
  const recorder = log
    ? new StepRecorder({
        log,
        clock,
        logger,
        costOf: (step) => {
          const cost = prices.costOf(step.model, step);
          if (cost === undefined && !unpriced.has(step.model)) {
            unpriced.add(step.model);
            logger.warn("a model has no price: its cost shows as unknown and counts toward no cost cap", {
              model: step.model,
              pricesAsOf: prices.asOf,
              fix: "add it under usage.prices",
            });
          }
          return cost;
        },
        listeners,
      })
    : undefined;
  const limits = usage ? new UsageLimits(usage, options.usage.limits, clock) : undefined;
  const deliveryObserver: DeliveryObserver = {
    posted(message, posted, latencyMs) {
      metrics?.deliveryObserver.posted?.(message, posted, latencyMs);
      recorder?.recordDelivery(encodeConversationKey(message.conversation), {
        kind: "delivery",
        platform: message.conversation.platform,
        chunks: 1,
        messageIds: [posted.id],
        latencyMs: Math.round(latencyMs),
      });
    },
    failed(message, error, latencyMs) {
      metrics?.deliveryObserver.failed?.(message, error, latencyMs);
      logger.warn("posting failed", { platform: message.conversation.platform, error });
    },
  };
  return {
    steps: log,
    usage,
    prices,
    metrics,
    teamSteps: recorder ? (context) => recorder.teamRun(context) : undefined,
    memoryWork: recorder
      ? {
          begin(conversationKey, userId) {
            const at = clock.now();
            // Started with its first step, or when it finishes as more than routine work.
            let recording: RunRecording | undefined;
            const run = () =>
              (recording ??= recorder.begin(
                { runId: newRunId(), conversationKey, userId, trigger: "memory" },
                { at },
              ));
            return {
              steps: { now: () => clock.now(), step: (detail) => run().step(detail) },
              finish({ control, messages, latencyMs, error, routine }) {
                const message =
                  error === undefined ? undefined : error instanceof Error ? error.message : String(error);
                if (routine && !recording && !message) return;
                const recorded = run();
                recorded.step({
                  kind: "memory",
                  control,
                  messages,
                  latencyMs,
                  ...(message ? { error: message } : {}),
                });
                recorded.finish(message ? "failed" : "completed", message);
              },
            };
          },
        }
      : undefined,
    longRun:
      recorder && log
        ? async (run) => {
            await log.resumeRun(run);
            return recorder.begin(run, { resume: true });
          }
        : undefined,
    async usageRefusal(userId, conversationKey) {
      if (!limits?.active) return undefined;
      return (await limits.refusal(userId, conversationKey))?.sentence;
    },
    deliveryObserver,
    observers: metrics ? [metrics.turnObserver] : [],
    commands: usage ? [usageCommand({ book: usage, clock, admins: options.usage.admins })] : [],
    observe(responder) {
      const limited =
        limits?.active === true
          ? new LimitedResponder({
              inner: responder,
              limits,
              logger,
              onRefused: () => metrics?.refused("usage-limit"),
            })
          : responder;
      return new ObservedResponder(limited, metrics);
    },
    recordCommands(commands) {
      if (!recorder) return [...commands];
      return commands.map((command) => ({
        ...command,
        async run(context) {
          const recording = recorder.begin({
            runId: newRunId(),
            conversationKey: context.key,
            userId: context.message.author.id,
            trigger: "command",
          });
          recording.step({ kind: "command", name: command.name });
          try {
            const result = await command.run(context);
            recording.finish("completed");
            return result;
          } catch (error) {
            recording.finish("failed", error instanceof Error ? error.message : String(error));
            throw error;
          }
        },
      }));
    },
    async flushed() {
      await recorder?.flushed();
      await usage?.flushed();
    },
  };
}
