import { MemorySaver } from "@langchain/langgraph";
import { createMemory, Engine, RequestTracking, type Store, silentLogger, Team } from "@switchboard/core";
import { learningsConfigSchema, requestsConfigSchema } from "@switchboard/core/config";
import { Learnings } from "@switchboard/core/host";
import { RequestTracker } from "@switchboard/core/records";
import { LiveSessions, RecordingAdapter } from "@switchboard/core/testing";
import { countingStore } from "./counting-store.ts";
import { scriptedMemoryModel, scriptedTeamModel } from "./memory-harness.ts";

const requestsConfig = requestsConfigSchema.parse({});

/**
 * Fills the store with `count` records of other conversations, the kinds a turn must never list:
 * open and closed requests, and live memory sessions.
 */
export async function seedOtherConversations(store: Store, count: number): Promise<void> {
  const tracker = new RequestTracker(store, { now: () => Date.now() }, requestsConfig);
  const sessions = new LiveSessions(store);
  const seedOne = async (index: number) => {
    const key = `test:seeded-${index}`;
    const request = await tracker.open({
      conversationKey: key,
      origin: {
        conversation: { platform: "test", path: [`seeded-${index}`] },
        messageId: `seed-${index}`,
        authorId: "u",
      },
      agent: null,
    });
    if (index % 2 === 0) await tracker.setStatus(request.id, "completed");
    await sessions.touch(key, "u", Date.now());
  };
  const parallel = 100;
  for (let start = 0; start < count; start += parallel) {
    await Promise.all(
      Array.from({ length: Math.min(parallel, count - start) }, (_, offset) => seedOne(start + offset)),
    );
  }
}

/**
 * The CLI's wiring of one turn — engine, tracked team, request tracking, memory — over a store that
 * counts every operation. Sweepers stay off: what is counted is the path of a message.
 */
export async function startCountedHotPath(store: Store) {
  const counting = countingStore(store);
  const counted = counting.store;
  const adapter = new RecordingAdapter();
  const memory = createMemory({
    store: counted,
    storeUrl: "memory://",
    checkpointer: new MemorySaver(),
    model: scriptedMemoryModel({}, 2_000),
    config: {},
  });
  const tracking = new RequestTracking({
    store: counted,
    clock: { now: () => Date.now() },
    logger: silentLogger,
    config: requestsConfig,
  });
  // Learnings as the CLI wires them: one read of the turn's subjects per run, nothing written.
  const learnings = new Learnings({
    store: counted,
    config: learningsConfigSchema.parse({}),
    clock: { now: () => Date.now() },
  });
  const teamModel = scriptedTeamModel(() => "Here is your answer.", 2_000);
  const team = new Team({
    config: { supervisor: { prompt: "Answer the user.", tools: [] }, specialists: [] },
    routing: { sticky: true },
    limits: { maxIterations: 20, maxRepeatedToolCalls: 5, wallTimeSeconds: 600 },
    checkpointer: new MemorySaver(),
    store: counted,
    modelFor: () => teamModel,
    describeModel: () => "scripted",
    tools: { ...memory.tools },
    contextFor: memory.contextFor,
    beforeRun: memory.beforeRun,
    learningsFor: (key, userId) => learnings.promptFor(key, userId),
    builtInTools: () => learnings.tools(),
    statusLines: tracking.statusLines,
  });
  memory.attach(team);
  const responder = tracking.track(team);
  const engine = new Engine({
    store: counted,
    adapters: [adapter],
    responder,
    continuations: responder,
    commands: [...team.commands, ...memory.commands, ...tracking.commands()],
    observers: [memory.observer],
    logger: silentLogger,
  });
  tracking.bind(engine, { sweep: false });
  await engine.start();
  return {
    adapter,
    counting,
    /** Sends `text` in `thread` and waits until it is answered and memory has recorded it. */
    async say(thread: string, text: string): Promise<void> {
      await adapter.send(text, { conversation: { platform: adapter.platform, path: [thread] } });
      await engine.idle();
      await memory.idle();
    },
    async stop() {
      await tracking.close();
      await engine.stop();
      await memory.close();
    },
  };
}
