import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import {
  type Clock,
  Engine,
  RequestTracking,
  type Store,
  Team,
  type TeamConfig,
  ToolCatalog,
} from "@switchboard/core";
import type { Adapter } from "@switchboard/core/adapter";
import { requestsConfigSchema } from "@switchboard/core/config";
import { type CatalogEntry, type ToolSource, teamIdentities } from "@switchboard/core/host";
import { RecordingAdapter } from "@switchboard/core/testing";

export interface TrackingHarnessOptions<A extends Adapter = RecordingAdapter> {
  readonly store: Store;
  readonly model: BaseChatModel;
  readonly catalog: readonly CatalogEntry[];
  /** Tools that come and go (MCP servers). */
  readonly toolSources?: readonly ToolSource[];
  readonly supervisorTools: readonly string[];
  readonly checkpointer?: BaseCheckpointSaver;
  readonly clock?: Clock;
  /** The platform connection under test (a real adapter against a stand-in); a recording one by default. */
  readonly adapter?: A;
  readonly admins?: readonly string[];
  readonly webhookSecret?: string;
  /** How the supervisor shows itself (its `display`): answers then carry that identity. */
  readonly display?: { readonly name: string; readonly icon?: string };
}

/** Engine + tracked team + request tracking, wired the way the CLI wires them. */
export async function startTrackingHarness<A extends Adapter = RecordingAdapter>(
  options: TrackingHarnessOptions<A>,
) {
  // Without an adapter of its own the harness records: A is then RecordingAdapter.
  const adapter = (options.adapter ?? new RecordingAdapter()) as A;
  const clock = options.clock ?? { now: () => Date.now() };
  const logger = { debug() {}, info() {}, warn() {}, error() {} };
  const catalog = new ToolCatalog(options.catalog, options.store, options.toolSources);
  const tracking = new RequestTracking({
    store: options.store,
    clock,
    logger,
    config: requestsConfigSchema.parse({ admins: options.admins ?? [] }),
    ...(options.webhookSecret ? { webhookSecret: options.webhookSecret } : {}),
  });
  const config: TeamConfig = {
    supervisor: {
      prompt: "You help.",
      tools: [...options.supervisorTools],
      ...(options.display ? { display: options.display } : {}),
    },
    specialists: [],
  };
  const team = new Team({
    config,
    routing: { sticky: true },
    limits: { maxIterations: 20, maxRepeatedToolCalls: 5, wallTimeSeconds: 600 },
    checkpointer: options.checkpointer ?? new MemorySaver(),
    store: options.store,
    modelFor: () => options.model,
    describeModel: () => "scripted",
    tools: catalog.registry(options.supervisorTools),
    attachedTools: (key, agent) => catalog.attachedTools(key, agent),
    needsApproval: (name) => catalog.needsApproval(name),
    statusLines: tracking.statusLines,
  });
  const responder = tracking.track(team);
  const engine = new Engine({
    store: options.store,
    adapters: [adapter],
    responder,
    continuations: responder,
    commands: [...team.commands, ...tracking.commands()],
    approvals: tracking.approvals,
    logger,
    ...(options.display ? { identities: teamIdentities(config) } : {}),
  });
  tracking.bind(engine, { sweep: false });
  await engine.start();
  return {
    adapter,
    engine,
    tracking,
    team,
    async stop() {
      await tracking.close();
      await engine.stop();
    },
  };
}
