import type { Adapter } from "../conversation/adapter.ts";

/** The adapter's own prefix when the engine accepts it, else the engine's first. */
export function commandPrefixFor(
  platform: string,
  adapters: readonly Adapter[],
  prefixes: readonly string[],
): string {
  const own = adapters.find((adapter) => adapter.platform === platform)?.commandPrefix;
  return own !== undefined && prefixes.includes(own) ? own : (prefixes[0] ?? "/");
}
