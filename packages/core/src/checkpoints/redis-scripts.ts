import { createHash } from "node:crypto";
import type { RedisArgument, RedisClientType } from "@redis/client";

/**
 * Lua that has to see a thread consistently: pruning decides what is unreferenced and deletes it
 * with no other client writing in between. The scripts derive a thread's keys from its base
 * (see redis-layout.ts); every such key carries the thread's hash tag, so they share one slot.
 */

const NAMESPACE_PREFIX = `
local function namespacePrefix(base, encodedNamespace)
  return base .. 'ns:' .. encodedNamespace .. ':'
end
`;

/**
 * KEYS: thread namespaces set, thread subgraphs zset. ARGV: thread base, encoded namespace, keep.
 * Keeps the newest `keep` checkpoints of the namespace; when that is the root namespace, also
 * drops subgraph checkpoints whose root checkpoint is older than the oldest kept one. Then
 * deletes the writes of dropped checkpoints and every blob no remaining checkpoint names.
 * Returns the number of checkpoints dropped.
 */
export const PRUNE_SCRIPT = `${NAMESPACE_PREFIX}
local base, rootEncodedNamespace, keep = ARGV[1], ARGV[2], tonumber(ARGV[3])
local NUL, NEWLINE = string.char(0), string.char(10)

local function drop(encodedNamespace, ids)
  local prefix = namespacePrefix(base, encodedNamespace)
  local index = prefix .. 'checkpoints'
  for _, id in ipairs(ids) do
    redis.call('DEL', prefix .. 'checkpoint:' .. id, prefix .. 'writes:' .. id)
    redis.call('ZREM', index, id)
  end
  local blobs = prefix .. 'blobs'
  local kept = redis.call('ZRANGE', index, 0, -1)
  if #kept == 0 then
    redis.call('DEL', blobs)
    redis.call('SREM', KEYS[1], encodedNamespace)
    return
  end
  local referenced = {}
  for _, id in ipairs(kept) do
    local fields = redis.call('HGET', prefix .. 'checkpoint:' .. id, 'blob_fields')
    if fields then
      for field in string.gmatch(fields, '[^' .. NEWLINE .. ']+') do referenced[field] = true end
    end
  end
  for _, field in ipairs(redis.call('HKEYS', blobs)) do
    if not referenced[field] then redis.call('HDEL', blobs, field) end
  end
end

local dropped = 0
local index = namespacePrefix(base, rootEncodedNamespace) .. 'checkpoints'
local excess = redis.call('ZCARD', index) - keep
if excess > 0 then
  drop(rootEncodedNamespace, redis.call('ZRANGE', index, 0, excess - 1))
  dropped = excess
end
if rootEncodedNamespace == '' then
  local oldest = redis.call('ZRANGE', index, 0, 0)[1]
  if oldest then
    local byNamespace = {}
    for _, member in ipairs(redis.call('ZRANGE', KEYS[2], '-', '(' .. oldest, 'BYLEX')) do
      local first = string.find(member, NUL, 1, true)
      local second = string.find(member, NUL, first + 1, true)
      local encodedNamespace = string.sub(member, first + 1, second - 1)
      byNamespace[encodedNamespace] = byNamespace[encodedNamespace] or {}
      table.insert(byNamespace[encodedNamespace], string.sub(member, second + 1))
      redis.call('ZREM', KEYS[2], member)
    end
    for encodedNamespace, ids in pairs(byNamespace) do
      drop(encodedNamespace, ids)
      dropped = dropped + #ids
    end
  end
end
return dropped
`;

/**
 * KEYS: checkpoint hash, writes hash. ARGV: "replace" or "keep", then field/value pairs.
 * Writes for a checkpoint that no longer exists (pruned meanwhile) are not stored: nothing
 * could read them, and no index would ever lead to their key to delete it.
 * Returns 1 when stored, 0 when the checkpoint was gone.
 */
export const PUT_WRITES_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local command = ARGV[1] == 'replace' and 'HSET' or 'HSETNX'
for i = 2, #ARGV, 2 do redis.call(command, KEYS[2], ARGV[i], ARGV[i + 1]) end
return 1
`;

/** KEYS: thread namespaces set, thread subgraphs zset, threads set. ARGV: thread base, thread id. */
export const DELETE_THREAD_SCRIPT = `${NAMESPACE_PREFIX}
local base = ARGV[1]
for _, encodedNamespace in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local prefix = namespacePrefix(base, encodedNamespace)
  for _, id in ipairs(redis.call('ZRANGE', prefix .. 'checkpoints', 0, -1)) do
    redis.call('DEL', prefix .. 'checkpoint:' .. id, prefix .. 'writes:' .. id)
  end
  redis.call('DEL', prefix .. 'checkpoints', prefix .. 'blobs')
end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SREM', KEYS[3], ARGV[2])
return 1
`;

const shas = new Map<string, string>();

/** EVALSHA, falling back to EVAL when the server's script cache is empty (after a restart). */
export async function runScript(
  client: RedisClientType,
  script: string,
  keys: RedisArgument[],
  args: RedisArgument[],
): Promise<unknown> {
  let sha = shas.get(script);
  if (sha === undefined) {
    sha = createHash("sha1").update(script).digest("hex");
    shas.set(script, sha);
  }
  const options = { keys, arguments: args };
  try {
    return await client.evalSha(sha, options);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("NOSCRIPT"))
      return await client.eval(script, options);
    throw error;
  }
}
