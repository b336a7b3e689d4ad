/**
 * Memory as the configuration describes it (sessions, notes, the archive, search), and what is
 * kept beside it: the learnings agents note, and where a catch-up reads what happened since a time
 * (memory's notes, the run-steps log).
 */
import {
  createMemory,
  type Logger,
  type Memory,
  type Observability,
  type Store,
  systemClock,
} from "@switchboard/core";
import {
  type BlobStore,
  type CatchUpSources,
  Identities,
  Learnings,
  type ModelCallPolicy,
  spaceOf,
} from "@switchboard/core/host";
import type { SwitchboardConfig } from "../config/schema.ts";
import type { OpenedCheckpointer } from "./checkpointer.ts";
import type { ModelCatalog } from "./model-catalog.ts";
import { memoryModel } from "./team.ts";

export interface MemoryDeps {
  readonly store: Store;
  /** Relative SQLite paths resolve against it. */
  readonly cwd: string;
  readonly checkpointer: OpenedCheckpointer;
  readonly models: ModelCatalog;
  readonly modelCalls: ModelCallPolicy;
  readonly observability: Observability;
  /** Where files are kept; a forgotten conversation's files go with it. Absent when attachments are off. */
  readonly blobs: BlobStore | undefined;
  readonly logger: Logger;
}

export interface ConfiguredMemory {
  readonly memory: Memory;
  readonly learnings: Learnings;
  /** For the supervisor's `catch_up` and the `/summary` command (both only when memory is on). */
  readonly catchUp: CatchUpSources;
}

export function createConfiguredMemory(config: SwitchboardConfig, deps: MemoryDeps): ConfiguredMemory {
  const { store, models, observability, blobs } = deps;
  const memory = createMemory({
    store,
    storeUrl: config.store,
    cwd: deps.cwd,
    checkpointer: deps.checkpointer.saver,
    logger: deps.logger,
    config: config.memory,
    recorder: observability.memoryWork,
    modelCalls: deps.modelCalls,
    // The offline model writes no memory entries: memory then stays extractive.
    ...memoryModel(config, models),
    ...(config.memory.summaryModel ? { summaryModel: models.modelFor(config.memory.summaryModel) } : {}),
    ...(blobs ? { forgetAlso: (key: string) => blobs.deleteSpace(spaceOf(key)) } : {}),
  });
  const learnings = new Learnings({
    store,
    config: config.memory.learnings,
    identities: new Identities(config.identities),
    clock: systemClock,
  });
  const catchUp = {
    notesOf: (key: string, since?: number) => memory.notesOf(key, since),
    runs: observability.steps,
    clock: systemClock,
  };
  return { memory, learnings, catchUp };
}
