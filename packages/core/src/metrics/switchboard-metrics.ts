import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { InboundMessage, OutboundMessage } from "../conversation/messages.ts";
import type { DeliveryObserver } from "../delivery/deliverer.ts";
import type { EngineHealth } from "../engine/engine.ts";
import type { AcceptOutcome } from "../engine/intake.ts";
import type { Turn, TurnAnswer, TurnObserver } from "../engine/responder.ts";
import type { StepListener } from "../steps/step-recorder.ts";
import type { AtomicStore } from "../store/types.ts";
import { registerEngineMetrics } from "./engine-metrics.ts";

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];

/**
 * Prometheus metrics of one process, in a registry of its own (two apps in one test process never
 * share counters). Each method is a hook another part already offers: the engine's intake outcome,
 * turn observers, the steps recorder's listener, the deliverer's observer.
 */
export class SwitchboardMetrics {
  readonly registry = new Registry();
  readonly #received: Counter<"platform">;
  readonly #refused: Counter<"reason">;
  readonly #answered: Counter<"agent">;
  readonly #turnSeconds: Histogram<"outcome">;
  readonly #modelSeconds: Histogram<"agent" | "model">;
  readonly #modelCalls: Counter<"agent" | "model" | "outcome">;
  readonly #tokens: Counter<"agent" | "model" | "kind">;
  readonly #cost: Counter<"agent" | "model">;
  readonly #toolCalls: Counter<"tool" | "outcome">;
  readonly #deliveries: Counter<"platform">;
  readonly #deliveryFailures: Counter<"platform">;
  readonly #connected: Gauge<"platform">;

  constructor(
    options: {
      atomic?: AtomicStore;
      /** Each MCP server's name and state, read when scraped. */
      toolServers?: () => readonly { name: string; status: string }[];
      /** The engine's own figures (turns, CPU slots, model endpoints, lock waits, queue age), read when scraped. */
      engineHealth?: () => EngineHealth | undefined;
    } = {},
  ) {
    const registers = [this.registry];
    this.#received = new Counter({
      name: "switchboard_messages_received_total",
      help: "Messages adapters handed to the engine",
      labelNames: ["platform"],
      registers,
    });
    this.#refused = new Counter({
      name: "switchboard_messages_refused_total",
      help: "Messages not answered, by reason (duplicate, not-addressed, own-message, usage-limit…)",
      labelNames: ["reason"],
      registers,
    });
    this.#answered = new Counter({
      name: "switchboard_messages_answered_total",
      help: "Turns answered and delivered, by answering agent",
      labelNames: ["agent"],
      registers,
    });
    this.#turnSeconds = new Histogram({
      name: "switchboard_turn_duration_seconds",
      help: "Time to produce a turn's answer (routing, model and tool calls)",
      labelNames: ["outcome"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#modelSeconds = new Histogram({
      name: "switchboard_model_call_duration_seconds",
      help: "Latency of one model call",
      labelNames: ["agent", "model"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#modelCalls = new Counter({
      name: "switchboard_model_calls_total",
      help: "Model calls by agent, model and outcome (ok, error)",
      labelNames: ["agent", "model", "outcome"],
      registers,
    });
    this.#tokens = new Counter({
      name: "switchboard_model_tokens_total",
      help: "Tokens by agent, model and kind (input, output, cached)",
      labelNames: ["agent", "model", "kind"],
      registers,
    });
    this.#cost = new Counter({
      name: "switchboard_model_cost_usd_total",
      help: "Cost of model calls in USD, from the price table",
      labelNames: ["agent", "model"],
      registers,
    });
    this.#toolCalls = new Counter({
      name: "switchboard_tool_calls_total",
      help: "Tool calls by tool and outcome (ok, error)",
      labelNames: ["tool", "outcome"],
      registers,
    });
    this.#deliveries = new Counter({
      name: "switchboard_deliveries_total",
      help: "Messages (chunks) posted, by platform",
      labelNames: ["platform"],
      registers,
    });
    this.#deliveryFailures = new Counter({
      name: "switchboard_delivery_failures_total",
      help: "Posts that failed (each attempt), by platform",
      labelNames: ["platform"],
      registers,
    });
    this.#connected = new Gauge({
      name: "switchboard_platform_connected",
      help: "1 while a platform adapter is started, 0 once stopped",
      labelNames: ["platform"],
      registers,
    });
    const toolServers = options.toolServers;
    if (toolServers) {
      new Gauge({
        name: "switchboard_mcp_server_connected",
        help: "1 while an MCP tool server is connected, 0 while it is connecting, down or stopped",
        labelNames: ["server"],
        registers,
        collect() {
          for (const server of toolServers())
            this.set({ server: server.name }, server.status === "connected" ? 1 : 0);
        },
      });
    }
    if (options.engineHealth) registerEngineMetrics(this.registry, options.engineHealth);
    const atomic = options.atomic;
    if (atomic) {
      const queued = async () => {
        const queues = await atomic.nonEmptyQueues();
        const lengths = await Promise.all(queues.map((queue) => atomic.queueLength(queue)));
        return { conversations: queues.length, items: lengths.reduce((sum, n) => sum + n, 0) };
      };
      // Read when scraped, never per message.
      new Gauge({
        name: "switchboard_queue_depth",
        help: "Work items waiting in conversation queues (the running turn's included)",
        registers,
        async collect() {
          this.set((await queued()).items);
        },
      });
      new Gauge({
        name: "switchboard_queued_conversations",
        help: "Conversations with queued work",
        registers,
        async collect() {
          this.set((await queued()).conversations);
        },
      });
    }
  }

  /** The engine's `onAccept`. */
  accepted(outcome: AcceptOutcome, message: InboundMessage): void {
    this.#received.inc({ platform: message.conversation.platform });
    if (!outcome.accepted) this.#refused.inc({ reason: outcome.reason });
  }

  refused(reason: string): void {
    this.#refused.inc({ reason });
  }

  platformConnected(platform: string, connected: boolean): void {
    this.#connected.set({ platform }, connected ? 1 : 0);
  }

  /** Times a turn from the responder's point of view. */
  async timeTurn<T>(work: () => Promise<T>): Promise<T> {
    const end = this.#turnSeconds.startTimer();
    try {
      const result = await work();
      end({ outcome: "answered" });
      return result;
    } catch (error) {
      end({ outcome: "failed" });
      throw error;
    }
  }

  readonly turnObserver: TurnObserver = {
    afterDelivery: (_turn: Turn, answer: TurnAnswer) => this.#answered.inc({ agent: answer.agent ?? "none" }),
  };

  readonly stepListener: StepListener = {
    onStep: (_run, step) => {
      if (step.kind === "model_call") {
        const labels = { agent: step.agent, model: step.model };
        this.#modelCalls.inc({ ...labels, outcome: step.error ? "error" : "ok" });
        this.#modelSeconds.observe(labels, step.latencyMs / 1000);
        this.#tokens.inc({ ...labels, kind: "input" }, step.inputTokens);
        this.#tokens.inc({ ...labels, kind: "output" }, step.outputTokens);
        this.#tokens.inc({ ...labels, kind: "cached" }, step.cachedTokens);
        this.#cost.inc(labels, step.costUsd ?? 0);
      } else if (step.kind === "tool_call") {
        this.#toolCalls.inc({ tool: step.tool, outcome: step.outcome });
      }
    },
  };

  readonly deliveryObserver: DeliveryObserver = {
    posted: (message: OutboundMessage) => this.#deliveries.inc({ platform: message.conversation.platform }),
    failed: (message: OutboundMessage) =>
      this.#deliveryFailures.inc({ platform: message.conversation.platform }),
  };

  /** The text exposition format, for `GET /metrics`. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
