import { isDeepStrictEqual } from "node:util";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
  writesSortKey,
} from "@langchain/langgraph-checkpoint";
import { CheckpointConfigError } from "./errors.ts";
import { mayPruneAfter, resolveKeepCheckpoints, rootCheckpointOf } from "./retention.ts";

/** A value as the saver's serde wrote it: its type tag and its bytes. */
export interface TypedValue {
  readonly type: string;
  readonly bytes: Uint8Array;
}

/** One channel's value at one version; shared by every checkpoint that carries that version. */
export interface StoredBlob {
  readonly channel: string;
  readonly version: string;
  readonly value: TypedValue;
}

export interface StoredWrite {
  readonly taskId: string;
  readonly channel: string;
  readonly idx: number;
  readonly taskPath: string;
  readonly value: TypedValue;
}

/** A checkpoint row as a backend stores it; channel values live apart, as blobs. */
export interface StoredCheckpoint {
  readonly threadId: string;
  readonly namespace: string;
  readonly checkpointId: string;
  readonly parentCheckpointId: string | undefined;
  readonly checkpoint: TypedValue;
  readonly metadata: TypedValue;
}

/** Everything `put` has to write, encoded once for any backend. */
export interface CheckpointRecord extends StoredCheckpoint {
  /** `metadata.parents[""]` for subgraph checkpoints: see `rootCheckpointOf`. */
  readonly rootCheckpointId: string | undefined;
  /** Every channel's version as text: the key under which its blob is found. */
  readonly channelVersions: Readonly<Record<string, string>>;
  /** Only the channels this step changed: unchanged channels keep pointing at older blobs. */
  readonly blobs: readonly StoredBlob[];
  /** False when this thread must not be pruned (see `mayPruneAfter`). */
  readonly mayPrune: boolean;
}

export interface WritesRecord {
  readonly threadId: string;
  readonly namespace: string;
  readonly checkpointId: string;
  readonly writes: readonly StoredWrite[];
  /** Special writes (errors, interrupts…) replace what was there; ordinary ones never overwrite. */
  readonly replaceExisting: boolean;
}

export interface RetainingSaverOptions {
  /** Checkpoints kept per thread and namespace (default 5, at least 2); `Infinity` keeps all. */
  keepCheckpoints?: number;
  serde?: SerializerProtocol;
}

/**
 * What our SQLite and Redis savers share: encoding checkpoints into per-channel blobs, decoding
 * them back into tuples, and the retention window.
 */
export abstract class RetainingCheckpointSaver extends BaseCheckpointSaver {
  readonly keepCheckpoints: number;

  constructor(options: RetainingSaverOptions = {}) {
    super(options.serde);
    this.keepCheckpoints = resolveKeepCheckpoints(options.keepCheckpoints);
  }

  /**
   * Versions are `step + 1 + random fraction` rather than plain `step + 1`: blobs are stored by
   * (channel, version), and a fork from an older checkpoint reaches the same step number as the
   * branch it left. With bare integers the fork would read the other branch's value.
   */
  override getNextVersion(current: number | undefined): number {
    const step = current === undefined ? 0 : Math.floor(Number.parseFloat(String(current)));
    return (Number.isFinite(step) ? step : 0) + 1 + Math.random() / 2;
  }

  protected async encodeCheckpoint(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<CheckpointRecord> {
    if (config.configurable === undefined) throw new CheckpointConfigError("put", "configurable");
    const threadId = requireString(config.configurable.thread_id, "put", "thread_id");
    const namespace = optionalString(config.configurable.checkpoint_ns) ?? "";
    const { channel_values: values, ...rest } = checkpoint;
    const blobs: StoredBlob[] = [];
    for (const [channel, version] of Object.entries(newVersions)) {
      if (!(channel in values)) continue;
      blobs.push({ channel, version: String(version), value: await this.encode(values[channel]) });
    }
    return {
      threadId,
      namespace,
      checkpointId: checkpoint.id,
      parentCheckpointId: nonEmptyString(config.configurable.checkpoint_id),
      rootCheckpointId: rootCheckpointOf(namespace, metadata),
      checkpoint: await this.encode(rest),
      metadata: await this.encode(metadata),
      channelVersions: Object.fromEntries(
        Object.entries(checkpoint.channel_versions).map(([channel, version]) => [channel, String(version)]),
      ),
      blobs,
      mayPrune: mayPruneAfter(metadata, this.keepCheckpoints),
    };
  }

  protected async encodeWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath = "",
  ): Promise<WritesRecord> {
    const threadId = requireString(config.configurable?.thread_id, "putWrites", "thread_id");
    const checkpointId = requireString(config.configurable?.checkpoint_id, "putWrites", "checkpoint_id");
    const stored: StoredWrite[] = [];
    for (const [index, [channel, value]] of writes.entries()) {
      const idx = WRITES_IDX_MAP[channel] ?? index;
      stored.push({ taskId, channel, idx, taskPath, value: await this.encode(value) });
    }
    return {
      threadId,
      namespace: optionalString(config.configurable?.checkpoint_ns) ?? "",
      checkpointId,
      writes: stored,
      replaceExisting: writes.every(([channel]) => channel in WRITES_IDX_MAP),
    };
  }

  /**
   * Rebuilds a tuple. `parentWrites` is only asked for by checkpoints older than format v4,
   * whose pending sends were kept as writes on their parent.
   */
  protected async decodeTuple(
    stored: StoredCheckpoint,
    blobs: readonly Pick<StoredBlob, "channel" | "value">[],
    writes: readonly StoredWrite[],
    parentWrites: () => Promise<readonly StoredWrite[]>,
  ): Promise<CheckpointTuple> {
    const withoutValues = (await this.decode(stored.checkpoint)) as Omit<Checkpoint, "channel_values">;
    const checkpoint: Checkpoint = {
      ...withoutValues,
      channel_versions: withoutValues.channel_versions ?? {},
      versions_seen: withoutValues.versions_seen ?? {},
      channel_values: {},
    };
    for (const blob of blobs) checkpoint.channel_values[blob.channel] = await this.decode(blob.value);
    if (checkpoint.v < 4 && stored.parentCheckpointId !== undefined) {
      await this.migratePendingSends(checkpoint, await parentWrites());
    }
    const address = (checkpointId: string) => ({
      configurable: {
        thread_id: stored.threadId,
        checkpoint_ns: stored.namespace,
        checkpoint_id: checkpointId,
      },
    });
    const pendingWrites: CheckpointPendingWrite[] = [];
    for (const write of sortWrites(writes)) {
      pendingWrites.push([write.taskId, write.channel, await this.decode(write.value)]);
    }
    return {
      config: address(stored.checkpointId),
      checkpoint,
      metadata: (await this.decode(stored.metadata)) as CheckpointMetadata,
      parentConfig: stored.parentCheckpointId === undefined ? undefined : address(stored.parentCheckpointId),
      pendingWrites,
    };
  }

  /** Decodes metadata only, for `list` filters: cheaper than a whole tuple. */
  protected async decodeMetadata(stored: Pick<StoredCheckpoint, "metadata">): Promise<CheckpointMetadata> {
    return (await this.decode(stored.metadata)) as CheckpointMetadata;
  }

  private async migratePendingSends(checkpoint: Checkpoint, parentWrites: readonly StoredWrite[]) {
    const sends: unknown[] = [];
    for (const write of sortWrites(parentWrites.filter((write) => write.channel === TASKS))) {
      sends.push(await this.decode(write.value));
    }
    checkpoint.channel_values[TASKS] = sends;
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  private async encode(value: unknown): Promise<TypedValue> {
    const [type, bytes] = await this.serde.dumpsTyped(value);
    return { type, bytes };
  }

  private decode(value: TypedValue): Promise<unknown> {
    return this.serde.loadsTyped(value.type, value.bytes);
  }
}

/** `list` filters match metadata key by key, by value. */
export function matchesMetadataFilter(
  metadata: CheckpointMetadata,
  filter: Record<string, unknown> | undefined,
): boolean {
  if (filter === undefined) return true;
  const record = metadata as Record<string, unknown>;
  return Object.entries(filter).every(([key, value]) => isDeepStrictEqual(record[key], value));
}

/** Writes in the order live execution applies them (see `writesSortKey`). */
export function sortWrites(writes: readonly StoredWrite[]): StoredWrite[] {
  return [...writes].sort((a, b) =>
    compareWritesSortKeys(
      writesSortKey(a.taskPath, a.taskId, a.idx),
      writesSortKey(b.taskPath, b.taskId, b.idx),
    ),
  );
}

/** Reads the parts of a `list`/`getTuple` config that select checkpoints. */
export function readSelector(config: RunnableConfig): {
  threadId: string | undefined;
  namespace: string | undefined;
  checkpointId: string | undefined;
} {
  return {
    threadId: nonEmptyString(config.configurable?.thread_id),
    namespace: optionalString(config.configurable?.checkpoint_ns),
    checkpointId: nonEmptyString(config.configurable?.checkpoint_id),
  };
}

function optionalString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return String(value);
}

function nonEmptyString(value: unknown): string | undefined {
  const text = optionalString(value);
  return text === "" ? undefined : text;
}

function requireString(value: unknown, operation: string, field: string): string {
  const text = nonEmptyString(value);
  if (text === undefined) throw new CheckpointConfigError(operation, field);
  return text;
}
