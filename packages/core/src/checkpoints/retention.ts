import type { CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { CheckpointOptionError } from "./errors.ts";

/**
 * How many checkpoints each thread keeps per namespace unless told otherwise.
 *
 * LangGraph writes the whole `messages` channel again at every step, so keeping every checkpoint
 * makes a conversation's storage grow with the square of its length. Keeping a bounded window
 * makes it grow linearly: only the newest few copies of the history exist at any time.
 */
export const DEFAULT_KEEP_CHECKPOINTS = 5;

/**
 * Never fewer than two: the newest checkpoint's parent must survive, because a checkpoint
 * written before format v4 takes its pending sends from its parent's writes.
 */
export const MIN_KEEP_CHECKPOINTS = 2;

/** Validates `keepCheckpoints`: a whole number ≥ 2, or `Infinity` to keep everything. */
export function resolveKeepCheckpoints(value: number | undefined): number {
  if (value === undefined) return DEFAULT_KEEP_CHECKPOINTS;
  if (value === Number.POSITIVE_INFINITY) return value;
  if (!Number.isInteger(value) || value < MIN_KEEP_CHECKPOINTS) {
    throw new CheckpointOptionError(
      `keepCheckpoints must be a whole number of at least ${MIN_KEEP_CHECKPOINTS} ` +
        `(or Infinity to keep every checkpoint), got ${value}`,
    );
  }
  return value;
}

/**
 * Whether storing a checkpoint with these metadata may prune its thread.
 *
 * A thread that uses LangGraph delta channels rebuilds them by walking ancestor checkpoints back
 * to the last snapshot, so dropping ancestors would lose state. Such channels store only their
 * writes and already grow linearly, so those threads are left whole.
 */
export function mayPruneAfter(metadata: CheckpointMetadata, keep: number): boolean {
  return Number.isFinite(keep) && metadata.counters_since_delta_snapshot === undefined;
}

/**
 * The root-graph checkpoint that started a subgraph checkpoint (`metadata.parents[""]`), or
 * undefined for root checkpoints.
 *
 * Every subgraph run gets a namespace of its own (`node:<task id>`), so bounding each namespace
 * alone would still leave one full copy of the state per turn. A subgraph checkpoint is therefore
 * dropped once the root checkpoint that started it has left the kept window: nothing can resume
 * or replay it from there.
 */
export function rootCheckpointOf(namespace: string, metadata: CheckpointMetadata): string | undefined {
  if (namespace === "") return undefined;
  const root = metadata.parents?.[""];
  return typeof root === "string" && root !== "" ? root : undefined;
}
