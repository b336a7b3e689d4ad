import { CheckpointDataError } from "./errors.ts";
import type { TypedValue } from "./retaining-saver.ts";

/**
 * Where the Redis saver keeps things. Per thread, all keys share the hash tag `{thread}` so that
 * the Lua scripts, which touch keys derived from one thread, stay within one cluster slot:
 *
 *   <prefix>threads                                   SET   thread ids (for `list` across threads)
 *   <prefix>{thread}:namespaces                       SET   encoded namespaces the thread uses
 *   <prefix>{thread}:subgraphs                        ZSET  "<root id>\0<encoded ns>\0<id>", by name:
 *                                                           subgraph checkpoints by their root checkpoint
 *   <prefix>{thread}:ns:<ns>:checkpoints              ZSET  checkpoint ids, all score 0, so in id order
 *   <prefix>{thread}:ns:<ns>:checkpoint:<id>          HASH  checkpoint, metadata, parent, blob_fields
 *   <prefix>{thread}:ns:<ns>:writes:<id>              HASH  ["task", idx] → packed write
 *   <prefix>{thread}:ns:<ns>:blobs                    HASH  ["channel", "version"] → packed value
 *
 * Thread ids and namespaces are percent-encoded: they may contain `:` and braces.
 * Checkpoint ids are LangGraph's uuid6 strings, which sort by creation time.
 */
/** The key prefix when neither the options nor the store URL's `?prefix=` give one. */
export const DEFAULT_REDIS_CHECKPOINT_PREFIX = "switchboard:checkpoint:";

export interface NamespaceKeys {
  readonly encodedNamespace: string;
  readonly index: string;
  readonly blobs: string;
  checkpoint(checkpointId: string): string;
  writes(checkpointId: string): string;
}

export interface ThreadKeys {
  /** What every key of this thread starts with (the scripts derive namespace keys from it). */
  readonly base: string;
  readonly namespaces: string;
  readonly subgraphs: string;
  namespace(namespace: string): NamespaceKeys;
}

export function threadsKey(prefix: string): string {
  return `${prefix}threads`;
}

export function threadKeys(prefix: string, threadId: string): ThreadKeys {
  const base = `${prefix}{${encodeURIComponent(threadId)}}:`;
  return {
    base,
    namespaces: `${base}namespaces`,
    subgraphs: `${base}subgraphs`,
    namespace: (namespace) => namespaceKeys(base, encodeURIComponent(namespace)),
  };
}

/** Must build the same names as `namespacePrefix` in the Lua scripts. */
export function namespaceKeys(threadBase: string, encodedNamespace: string): NamespaceKeys {
  const prefix = `${threadBase}ns:${encodedNamespace}:`;
  return {
    encodedNamespace,
    index: `${prefix}checkpoints`,
    blobs: `${prefix}blobs`,
    checkpoint: (checkpointId) => `${prefix}checkpoint:${checkpointId}`,
    writes: (checkpointId) => `${prefix}writes:${checkpointId}`,
  };
}

/** Field of a blob in the namespace's blob hash. JSON text never holds a raw newline (see blob_fields). */
export function blobField(channel: string, version: string): string {
  return JSON.stringify([channel, version]);
}

export function channelOfBlobField(field: string): string {
  const parsed: unknown = JSON.parse(field);
  if (!Array.isArray(parsed) || typeof parsed[0] !== "string") {
    throw new CheckpointDataError(`blob field ${JSON.stringify(field)} is not ["channel", "version"]`);
  }
  return parsed[0];
}

export function writeField(taskId: string, idx: number): string {
  return JSON.stringify([taskId, idx]);
}

export function subgraphMember(
  rootCheckpointId: string,
  encodedNamespace: string,
  checkpointId: string,
): string {
  return `${rootCheckpointId}\0${encodedNamespace}\0${checkpointId}`;
}

/** A JSON header line, then the raw bytes: one Redis value, no base64. */
export function packValue(header: Record<string, string | number>, value: TypedValue): Buffer {
  return Buffer.concat([Buffer.from(`${JSON.stringify({ ...header, type: value.type })}\n`), value.bytes]);
}

export function unpackValue(packed: Buffer): { header: Record<string, unknown>; value: TypedValue } {
  const newline = packed.indexOf(0x0a);
  if (newline < 0) throw new CheckpointDataError("a packed value has no header line");
  const header: unknown = JSON.parse(packed.subarray(0, newline).toString("utf8"));
  if (
    typeof header !== "object" ||
    header === null ||
    !("type" in header) ||
    typeof header.type !== "string"
  ) {
    throw new CheckpointDataError("a packed value header has no type");
  }
  return {
    header: header as Record<string, unknown>,
    value: { type: header.type, bytes: packed.subarray(newline + 1) },
  };
}
