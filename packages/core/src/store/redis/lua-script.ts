import { createHash } from "node:crypto";
import type { RedisConnection } from "./redis-connection.ts";

/** A Lua script sent by SHA1 (EVALSHA) and, only when the server has not seen it yet, in full (EVAL). */
export interface LuaScript {
  readonly source: string;
  readonly sha1: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha1: createHash("sha1").update(source).digest("hex") };
}

export async function runLuaScript(
  client: RedisConnection,
  script: LuaScript,
  keys: string[],
  args: string[],
): Promise<unknown> {
  const options = { keys, arguments: args };
  try {
    return await client.evalSha(script.sha1, options);
  } catch (error) {
    // The script cache is empty after a server restart or SCRIPT FLUSH; EVAL also loads it again.
    if (error instanceof Error && error.message.startsWith("NOSCRIPT")) {
      return await client.eval(script.source, options);
    }
    throw error;
  }
}
