/**
 * The adapters the engine of this process runs: the enabled platforms as the role runs them, or
 * the terminal chat when none is enabled (role `all` only); the operator console's web chat
 * besides. With the console on, every adapter's traffic is recorded for it.
 */
import type { Store } from "@switchboard/core";
import type { Adapter } from "@switchboard/core/adapter";
import type { SwitchboardConfig } from "../config/schema.ts";
import { ConsoleAdapter } from "../console/console-adapter.ts";
import type { ScaleOut } from "../scale-out/index.ts";
import type { OperatorConsole } from "./operator-console.ts";
import type { PlatformAdapter } from "./platform-adapters.ts";
import { platformAdaptersForRole } from "./role.ts";

export interface EngineAdaptersDeps {
  readonly store: Store;
  readonly scaleOut: ScaleOut | undefined;
  readonly operatorConsole: OperatorConsole | undefined;
  /** Where the console chat goes (stdout). */
  readonly print: (line: string) => void;
  /** The console user's id (the person at the terminal). */
  readonly consoleUser: string;
  /** How answers' markdown is shown in the console chat; as written if absent. */
  readonly renderMarkdown?: ((markdown: string) => string) | undefined;
}

export interface EngineAdapters {
  /** Present when no platform is enabled: the terminal chat. */
  readonly console: ConsoleAdapter | undefined;
  /** What the engine gets, in this order: the platforms (or the terminal chat), then the web chat. */
  readonly adapters: Adapter[];
}

export async function createEngineAdapters(
  config: SwitchboardConfig,
  platformAdapters: readonly PlatformAdapter[],
  deps: EngineAdaptersDeps,
): Promise<EngineAdapters> {
  const { operatorConsole } = deps;
  const consoleAdapter =
    platformAdapters.length === 0 && config.role === "all"
      ? new ConsoleAdapter({
          print: deps.print,
          state: deps.store.namespace<string>("console"),
          userId: deps.consoleUser,
          ...(deps.renderMarkdown ? { renderMarkdown: deps.renderMarkdown } : {}),
        })
      : undefined;
  const baseAdapters: Adapter[] = [
    ...(consoleAdapter
      ? [consoleAdapter]
      : await platformAdaptersForRole(config, platformAdapters, deps.scaleOut)),
    ...(operatorConsole ? [operatorConsole.chat] : []),
  ];
  return {
    console: consoleAdapter,
    adapters: baseAdapters.map((adapter) => operatorConsole?.record(adapter) ?? adapter),
  };
}
