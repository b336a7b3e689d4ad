/**
 * The engine's own figures as gauges, read from its health when scraped: turns in progress and
 * waiting to start, the CPU slots and the event loop delay that sizes them, lock waits, queue age,
 * and each model endpoint's adaptive limit, calls in flight and calls in line.
 */
import { Counter, Gauge, type Registry } from "prom-client";
import type { EndpointState } from "../capacity/endpoint-limiter.ts";
import type { EngineHealth } from "../engine/engine.ts";

export function registerEngineMetrics(
  registry: Registry,
  engineHealth: () => EngineHealth | undefined,
): void {
  const registers = [registry];
  const gauge = (name: string, help: string, read: (health: EngineHealth) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const health = engineHealth();
        if (health) this.set(read(health));
      },
    });
  gauge(
    "switchboard_running_turns",
    "Turns in progress in this process: computing, or waiting on a model or a tool",
    (health) => health.runningTurns,
  );
  gauge(
    "switchboard_max_turns",
    "The ceiling on turns in progress in this process (engine.maxConcurrentTurns)",
    (health) => health.maxTurns,
  );
  gauge(
    "switchboard_turns_waiting_to_start",
    "Conversations whose next turn waits to start: under the ceiling, or for a CPU slot",
    (health) => health.waitingToStart,
  );
  gauge(
    "switchboard_cpu_slots",
    "Turns that may compute at once now (sized by the event loop's delay)",
    (health) => health.cpuSlots.limit,
  );
  gauge("switchboard_cpu_slots_in_use", "Turns computing now", (health) => health.cpuSlots.inUse);
  gauge(
    "switchboard_turns_waiting_for_cpu",
    "Turns waiting for a CPU slot: to start, or to go on after a model or tool call",
    (health) => health.cpuSlots.waiting,
  );
  gauge(
    "switchboard_event_loop_delay_p99_seconds",
    "99th percentile of the event loop's delay over the last window (what an acknowledgement waits for)",
    (health) => health.eventLoop.delayP99Ms / 1000,
  );
  gauge(
    "switchboard_event_loop_utilization",
    "Share of the last window the event loop spent running code (0–1)",
    (health) => health.eventLoop.utilization,
  );
  gauge(
    "switchboard_lock_waits",
    "Times this process found a conversation locked by another instance (since start)",
    (health) => health.lockWaits,
  );
  gauge(
    "switchboard_oldest_queue_age_seconds",
    "Age of the oldest queued work item, as of the recovery loop's last round",
    (health) => (health.queues?.oldestQueueAgeMs ?? 0) / 1000,
  );
  registerEndpointMetrics(registry, () => engineHealth()?.modelEndpoints ?? []);
}

const CIRCUIT_VALUE = { closed: 0, "half-open": 1, open: 2 } as const;

function registerEndpointMetrics(registry: Registry, states: () => readonly EndpointState[]): void {
  const registers = [registry];
  const perEndpoint = (name: string, help: string, read: (state: EndpointState) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["endpoint"],
      registers,
      collect() {
        for (const state of states()) this.set({ endpoint: state.endpoint }, read(state));
      },
    });
  perEndpoint(
    "switchboard_model_endpoint_limit",
    "Calls a model endpoint may have in flight now (adaptive: grows while calls succeed, halves on 429/503/timeouts)",
    (state) => state.limit,
  );
  perEndpoint(
    "switchboard_model_endpoint_in_flight",
    "Calls in flight to a model endpoint",
    (state) => state.inFlight,
  );
  perEndpoint(
    "switchboard_model_endpoint_queued",
    "Calls waiting for a model endpoint's capacity (its limit, a Retry-After pause, a per-minute cap)",
    (state) => state.queued,
  );
  perEndpoint(
    "switchboard_model_circuit_state",
    "A model endpoint's circuit: 0 closed, 1 half-open (one probe call let through), 2 open (calls refused after repeated provider failures; turns wait for their later retry)",
    (state) => CIRCUIT_VALUE[state.circuit ?? "closed"],
  );
  const opened = new Map<string, number>();
  new Counter({
    name: "switchboard_model_circuit_opened_total",
    help: "Times a model endpoint's circuit opened",
    labelNames: ["endpoint"],
    registers,
    collect() {
      for (const state of states()) {
        const count = state.circuitOpened ?? 0;
        this.inc({ endpoint: state.endpoint }, count - (opened.get(state.endpoint) ?? 0));
        opened.set(state.endpoint, count);
      }
    },
  });
  // Counters kept by the limiters; the metric adds what is new since the last scrape.
  const seen = new Map<string, number>();
  new Counter({
    name: "switchboard_model_endpoint_congestion_total",
    help: "Congestion signals from a model endpoint, by kind (rate_limited: 429, overloaded: 503/529, timeout)",
    labelNames: ["endpoint", "signal"],
    registers,
    collect() {
      for (const state of states()) {
        for (const [signal, count] of Object.entries(state.congestion)) {
          const key = `${state.endpoint} ${signal}`;
          const delta = count - (seen.get(key) ?? 0);
          seen.set(key, count);
          this.inc({ endpoint: state.endpoint, signal }, delta);
        }
      }
    },
  });
}
