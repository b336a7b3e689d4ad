/**
 * `scheduleFireLatencyP99Ms`: 1,000 schedules due within one minute, each in its own conversation,
 * fired by the role-`all` driver (the due index polled once a second, woken at the next due time)
 * into the production pipeline — the engine's durable queue, the tracked team on an instant model,
 * the outbox — until the platform's `post`. Latency is due time → post.
 */
import {
  createSchedules,
  Engine,
  openCheckpointer,
  openStore,
  RequestTracking,
  silentLogger,
  systemClock,
  Team,
} from "@switchboard/core";
import type { Adapter, InboundSink, OutboundMessage, PostedMessage } from "@switchboard/core/adapter";
import { requestsConfigSchema, schedulesConfigSchema } from "@switchboard/core/config";
import type { ScheduleRecord } from "@switchboard/core/records";
import { atMost, type Figure } from "./support/figures.ts";
import { instantModel } from "./support/instant.ts";
import { percentile, round } from "./support/stats.ts";
import { SINGLE_AGENT_TEAM } from "./support/switchboard-stack.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";

const SCHEDULES = 1_000;
const SPREAD_MS = 60_000;
/** Before the first fire: the stack is built and the schedules written. */
const LEAD_MS = 5_000;
const TARGET_MS = 1_000;

/** Records when each place was first posted to. */
class PostClock implements Adapter {
  readonly platform = "bench";
  readonly limits = { maxMessageLength: 100_000 };
  readonly firstPostAt = new Map<string, number>();

  async start(_sink: InboundSink): Promise<void> {}
  async stop(): Promise<void> {}

  async post(message: OutboundMessage): Promise<PostedMessage> {
    const place = message.conversation.path[0] ?? "";
    if (!this.firstPostAt.has(place)) this.firstPostAt.set(place, Date.now());
    return { id: `p${this.firstPostAt.size}`, conversation: message.conversation };
  }
}

export async function measureSchedules(): Promise<Figure[]> {
  const dir = tempDir("schedules");
  const url = sqliteUrl(dir.path);
  const store = await openStore(url, { logger: silentLogger });
  const checkpoints = await openCheckpointer(url, { logger: silentLogger });
  const model = instantModel();
  const team = new Team({
    config: SINGLE_AGENT_TEAM,
    routing: { sticky: true },
    limits: { maxIterations: 20, maxRepeatedToolCalls: 5, wallTimeSeconds: 600 },
    checkpointer: checkpoints.saver,
    store,
    modelFor: () => model,
    describeModel: () => "bench:instant",
  });
  const tracking = new RequestTracking({
    store,
    clock: systemClock,
    logger: silentLogger,
    config: requestsConfigSchema.parse({}),
  });
  const tracked = tracking.track(team);
  const adapter = new PostClock();
  const schedules = createSchedules({
    store,
    config: schedulesConfigSchema.parse({ maxPerUser: SCHEDULES }),
    defaultTimeZone: "UTC",
    admins: [],
    zoneOf: async () => "UTC",
    placeFor: (conversation) => ({ post: conversation, channel: conversation }),
    originOf: async () => undefined,
    runner: () => tracked,
    digests: {},
    clock: systemClock,
    logger: silentLogger,
  });
  const engine = new Engine({
    store,
    adapters: [adapter],
    responder: tracked,
    continuations: schedules.continuations(tracked),
    settings: { maxConcurrentTurns: 16 },
  });
  await engine.start();
  tracking.bind(engine, { sweep: false });
  schedules.bind(engine);
  const dueAt = new Map<string, number>();
  try {
    const first = Date.now() + LEAD_MS;
    for (let index = 0; index < SCHEDULES; index++) {
      const place = `s${index}`;
      const due = first + Math.floor((index * SPREAD_MS) / SCHEDULES);
      dueAt.set(place, due);
      const record: ScheduleRecord = {
        id: `bench-${index}`,
        timing: { kind: "once", at: new Date(due).toISOString() },
        timeZone: "UTC",
        instructions: "Say that it is time.",
        title: `bench ${index}`,
        home: { key: `bench:${place}`, post: { platform: "bench", path: [place] } },
        ownerId: "bench-user",
        source: "chat",
        status: "active",
        nextFireAt: due,
        fireCount: 0,
        skippedCount: 0,
        createdAt: Date.now(),
        updatedAt: Date.now(),
      };
      await schedules.store.save(record, undefined);
    }
    if (Date.now() > first) throw new Error("writing the schedules took longer than the lead time");
    schedules.startDriving();
    const deadline = first + SPREAD_MS + 60_000;
    while (adapter.firstPostAt.size < SCHEDULES && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    await schedules.stop();
    await engine.idle();
  } finally {
    await schedules.stop();
    await engine.stop();
    await checkpoints.close();
    await store.close();
    dir.remove();
  }
  const latencies = [...dueAt].flatMap(([place, due]) => {
    const posted = adapter.firstPostAt.get(place);
    return posted === undefined ? [] : [posted - due];
  });
  const missing = SCHEDULES - latencies.length;
  const p99 = latencies.length === 0 ? null : round(percentile(latencies, 99), 1);
  const p50 = latencies.length === 0 ? null : round(percentile(latencies, 50), 1);
  const counted = `${SCHEDULES} one-time schedules due evenly within ${SPREAD_MS / 1000} s, one conversation each; role all (due index polled every second, woken at the next due time), SQLite, instant model, tracked team, outbox${missing > 0 ? `; ${missing} never posted` : ""}`;
  return [
    {
      key: "scheduleFireLatencyP99Ms",
      value: missing > 0 ? null : p99,
      unit: "ms",
      target: { text: `≤ ${TARGET_MS}`, met: missing > 0 ? false : atMost(p99, TARGET_MS) },
      note: `due time → post; ${counted}`,
    },
    {
      key: "scheduleFireLatencyP50Ms",
      value: missing > 0 ? null : p50,
      unit: "ms",
      note: `due time → post, median; ${counted}`,
    },
  ];
}
