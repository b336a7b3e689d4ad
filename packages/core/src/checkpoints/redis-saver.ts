import type { RunnableConfig } from "@langchain/core/runnables";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  PendingWrite,
} from "@langchain/langgraph-checkpoint";
import { RESP_TYPES, type RedisClientType } from "@redis/client";
import { CheckpointDataError } from "./errors.ts";
import {
  blobField,
  channelOfBlobField,
  DEFAULT_REDIS_CHECKPOINT_PREFIX,
  type NamespaceKeys,
  namespaceKeys,
  packValue,
  subgraphMember,
  threadKeys,
  threadsKey,
  unpackValue,
  writeField,
} from "./redis-layout.ts";
import { DELETE_THREAD_SCRIPT, PRUNE_SCRIPT, PUT_WRITES_SCRIPT, runScript } from "./redis-scripts.ts";
import {
  matchesMetadataFilter,
  RetainingCheckpointSaver,
  type RetainingSaverOptions,
  readSelector,
  type StoredCheckpoint,
  type StoredWrite,
} from "./retaining-saver.ts";

export interface RedisSaverOptions extends RetainingSaverOptions {
  /** A connected client; the saver does not close it. */
  client: RedisClientType;
  /** Every key starts with this, so deployments and test runs can share one server. */
  keyPrefix?: string;
}

interface Located {
  readonly threadId: string;
  readonly namespace: string;
  readonly checkpointId: string;
}

/**
 * LangGraph checkpoints on plain Redis 7 (core commands and Lua only: no RedisJSON, no
 * RediSearch). Layout in redis-layout.ts; channel values are stored once per version and each
 * `put` keeps only the newest `keepCheckpoints` checkpoints per thread and namespace.
 */
export class RedisSaver extends RetainingCheckpointSaver {
  readonly keyPrefix: string;
  private readonly client: RedisClientType;
  /** The same connection, answering bulk strings as Buffers: checkpoint values are bytes. */
  private readonly binary;

  constructor(options: RedisSaverOptions) {
    super(options);
    this.client = options.client;
    this.keyPrefix = options.keyPrefix ?? DEFAULT_REDIS_CHECKPOINT_PREFIX;
    this.binary = options.client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { threadId, namespace = "", checkpointId } = readSelector(config);
    if (threadId === undefined) return undefined;
    const keys = threadKeys(this.keyPrefix, threadId).namespace(namespace);
    const id = checkpointId ?? (await this.newestIds(keys, undefined, 1))[0];
    if (id === undefined) return undefined;
    return this.loadTuple({ threadId, namespace, checkpointId: id }, keys);
  }

  override async *list(
    config: RunnableConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    const { threadId, namespace, checkpointId } = readSelector(config);
    const before = readSelector(options.before ?? {}).checkpointId;
    const filtered = options.filter !== undefined && Object.keys(options.filter).length > 0;
    const perNamespace = filtered ? undefined : options.limit;
    const threads =
      threadId === undefined ? await this.client.sMembers(threadsKey(this.keyPrefix)) : [threadId];
    const candidates: { located: Located; keys: NamespaceKeys }[] = [];
    for (const thread of threads) {
      const keysOfThread = threadKeys(this.keyPrefix, thread);
      const encodedNamespaces =
        namespace === undefined
          ? await this.client.sMembers(keysOfThread.namespaces)
          : [encodeURIComponent(namespace)];
      for (const encoded of encodedNamespaces) {
        const keys = namespaceKeys(keysOfThread.base, encoded);
        const ids =
          checkpointId === undefined
            ? await this.newestIds(keys, before, perNamespace)
            : before === undefined || checkpointId < before
              ? [checkpointId]
              : [];
        for (const id of ids) {
          candidates.push({
            located: { threadId: thread, namespace: decodeURIComponent(encoded), checkpointId: id },
            keys,
          });
        }
      }
    }
    // Newest first across threads and namespaces, as the Postgres saver orders them.
    candidates.sort((a, b) => compareDescending(a.located.checkpointId, b.located.checkpointId));
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    for (const { located, keys } of candidates) {
      if (remaining <= 0) return;
      const tuple = await this.loadTuple(located, keys, filtered ? options.filter : undefined);
      // Undefined when pruned since the ids were read, or filtered out.
      if (tuple === undefined) continue;
      remaining -= 1;
      yield tuple;
    }
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const record = await this.encodeCheckpoint(config, checkpoint, metadata, newVersions);
    const thread = threadKeys(this.keyPrefix, record.threadId);
    const keys = thread.namespace(record.namespace);
    const blobFields = Object.entries(record.channelVersions).map(([channel, version]) =>
      blobField(channel, version),
    );
    const fields: Record<string, string | Buffer> = {
      checkpoint_type: record.checkpoint.type,
      checkpoint: Buffer.from(record.checkpoint.bytes),
      metadata_type: record.metadata.type,
      metadata: Buffer.from(record.metadata.bytes),
      blob_fields: blobFields.join("\n"),
    };
    if (record.parentCheckpointId !== undefined) fields.parent = record.parentCheckpointId;
    const transaction = this.client.multi();
    for (const blob of record.blobs) {
      transaction.hSetNX(keys.blobs, blobField(blob.channel, blob.version), packValue({}, blob.value));
    }
    transaction
      .hSet(keys.checkpoint(record.checkpointId), fields)
      .zAdd(keys.index, { score: 0, value: record.checkpointId })
      .sAdd(thread.namespaces, keys.encodedNamespace)
      .sAdd(threadsKey(this.keyPrefix), record.threadId);
    if (record.rootCheckpointId !== undefined) {
      const member = subgraphMember(record.rootCheckpointId, keys.encodedNamespace, record.checkpointId);
      transaction.zAdd(thread.subgraphs, { score: 0, value: member });
    }
    await transaction.exec();
    if (record.mayPrune) {
      await runScript(
        this.client,
        PRUNE_SCRIPT,
        [thread.namespaces, thread.subgraphs],
        [thread.base, keys.encodedNamespace, String(this.keepCheckpoints)],
      );
    }
    return {
      configurable: {
        thread_id: record.threadId,
        checkpoint_ns: record.namespace,
        checkpoint_id: record.checkpointId,
      },
    };
  }

  override async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const record = await this.encodeWrites(config, writes, taskId, taskPath);
    const keys = threadKeys(this.keyPrefix, record.threadId).namespace(record.namespace);
    const args: (string | Buffer)[] = [record.replaceExisting ? "replace" : "keep"];
    for (const write of record.writes) {
      args.push(
        writeField(write.taskId, write.idx),
        packValue(
          { taskId: write.taskId, idx: write.idx, channel: write.channel, taskPath: write.taskPath },
          write.value,
        ),
      );
    }
    await runScript(
      this.client,
      PUT_WRITES_SCRIPT,
      [keys.checkpoint(record.checkpointId), keys.writes(record.checkpointId)],
      args,
    );
  }

  override async deleteThread(threadId: string): Promise<void> {
    const thread = threadKeys(this.keyPrefix, threadId);
    await runScript(
      this.client,
      DELETE_THREAD_SCRIPT,
      [thread.namespaces, thread.subgraphs, threadsKey(this.keyPrefix)],
      [thread.base, threadId],
    );
  }

  /** Newest first; ids are uuid6 strings, so their byte order is their time order. */
  private newestIds(
    keys: NamespaceKeys,
    before: string | undefined,
    limit: number | undefined,
  ): Promise<string[]> {
    const max = before === undefined ? "+" : `(${before}`;
    return this.client.zRange(keys.index, max, "-", {
      BY: "LEX",
      REV: true,
      ...(limit === undefined ? {} : { LIMIT: { offset: 0, count: limit } }),
    });
  }

  private async loadTuple(
    located: Located,
    keys: NamespaceKeys,
    filter?: Record<string, unknown>,
  ): Promise<CheckpointTuple | undefined> {
    const hash = await this.binary.hGetAll(keys.checkpoint(located.checkpointId));
    if (hash.checkpoint === undefined) return undefined;
    const stored: StoredCheckpoint = {
      ...located,
      parentCheckpointId: hash.parent?.toString("utf8"),
      checkpoint: { type: text(hash.checkpoint_type, "checkpoint_type"), bytes: hash.checkpoint },
      metadata: { type: text(hash.metadata_type, "metadata_type"), bytes: bytes(hash.metadata, "metadata") },
    };
    if (filter !== undefined && !matchesMetadataFilter(await this.decodeMetadata(stored), filter))
      return undefined;
    const fields = text(hash.blob_fields, "blob_fields")
      .split("\n")
      .filter((field) => field !== "");
    const [values, writes] = await Promise.all([
      fields.length === 0 ? [] : this.binary.hmGet(keys.blobs, fields),
      this.writesOf(keys, located.checkpointId),
    ]);
    const blobs = fields.flatMap((field, i) => {
      const packed = values[i];
      return packed ? [{ channel: channelOfBlobField(field), value: unpackValue(packed).value }] : [];
    });
    return this.decodeTuple(stored, blobs, writes, async () =>
      stored.parentCheckpointId === undefined ? [] : this.writesOf(keys, stored.parentCheckpointId),
    );
  }

  private async writesOf(keys: NamespaceKeys, checkpointId: string): Promise<StoredWrite[]> {
    const hash = await this.binary.hGetAll(keys.writes(checkpointId));
    return Object.values(hash).map((packed) => {
      const { header, value } = unpackValue(packed);
      return {
        taskId: String(header.taskId),
        idx: Number(header.idx),
        channel: String(header.channel),
        taskPath: String(header.taskPath ?? ""),
        value,
      };
    });
  }
}

function compareDescending(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

function text(value: Buffer | undefined, field: string): string {
  return bytes(value, field).toString("utf8");
}

function bytes(value: Buffer | undefined, field: string): Buffer {
  if (value === undefined) throw new CheckpointDataError(`checkpoint hash has no ${field} field`);
  return value;
}
