/**
 * The Node and V8 options `switchboard start` — the long-running command — runs with. A flag the
 * process lacks is added by replacing the process once, at startup, with the same program run with
 * it (`process.execve`, Node 22.15+: same process id, same open files and terminal, signals arrive as
 * before), before anything is loaded or listened to. A flag given already (on the command line or in
 * `NODE_OPTIONS`) is the operator's choice and is kept as it is.
 *
 * - `--experimental-async-context-frame`, Node 22 only. `AsyncLocalStorage` (which LangChain,
 *   LangGraph and our logs rely on) is built there on promise hooks: every promise the process
 *   creates pays an init, before and after hook, 10–20 % of the CPU per event measured on
 *   `switchboard start` under Slack load. Node 24 and later build it on AsyncContextFrame at no cost
 *   per promise and refuse the flag ("bad option"), so it cannot sit in the `#!` line.
 * - `--max-semi-space-size=64` (MB). A turn allocates a few megabytes that die young (prompts,
 *   LangChain configs, JSON of store records); V8's default young generation (16 MB semi-spaces)
 *   fills in a few dozen turns under load and each scavenge copies what is still alive. Larger
 *   semi-spaces scavenge less often: measured on `switchboard start` under Slack load (memory off,
 *   1,500 events at 50 in flight, interleaved runs), 7–15 % less CPU per event for 30–80 MB more
 *   peak RSS (with 32 MB: 4 %).
 */

export const ASYNC_CONTEXT_FRAME_FLAG = "--experimental-async-context-frame";
export const SEMI_SPACE_FLAG = "--max-semi-space-size=64";

interface NodeProcess {
  readonly versions: { readonly node: string };
  readonly execArgv: readonly string[];
  readonly argv: readonly string[];
  readonly execPath: string;
  readonly env: NodeJS.ProcessEnv;
  readonly execve?: (file: string, args?: readonly string[], env?: NodeJS.ProcessEnv) => never;
}

interface ServerFlag {
  readonly flag: string;
  /** The option's name: given in any form or value, the operator's setting stands. */
  readonly option: string;
  readonly wanted: (nodeMajor: number) => boolean;
}

const SERVER_FLAGS: readonly ServerFlag[] = [
  { flag: ASYNC_CONTEXT_FRAME_FLAG, option: ASYNC_CONTEXT_FRAME_FLAG, wanted: (major) => major === 22 },
  { flag: SEMI_SPACE_FLAG, option: "--max-semi-space-size", wanted: () => true },
];

/** The flags `start` should run with that this process lacks. */
function missingServerFlags(node: NodeProcess): string[] {
  const major = Number(node.versions.node.split(".")[0]);
  const given = [...node.execArgv, ...(node.env.NODE_OPTIONS ?? "").split(/\s+/)];
  // V8 takes its options with dashes or underscores alike.
  const named = (option: string) => (arg: string) =>
    arg.replaceAll("_", "-") === option || arg.replaceAll("_", "-").startsWith(`${option}=`);
  return SERVER_FLAGS.filter(({ option, wanted }) => wanted(major) && !given.some(named(option))).map(
    ({ flag }) => flag,
  );
}

/** The arguments to run this process again with the flags it lacks, or undefined when it lacks none. */
export function serverFlagArgs(node: NodeProcess): string[] | undefined {
  const missing = missingServerFlags(node);
  if (missing.length === 0) return undefined;
  return [node.execPath, ...missing, ...node.execArgv, ...node.argv.slice(1)];
}

/**
 * Replaces this process with itself run with the flags it lacks, when `execve` exists (Node 22.15+,
 * not on Windows); returns only when it did not (then the process runs as it is, only dearer).
 */
export function restartWithServerFlags(node: NodeProcess): void {
  const args = serverFlagArgs(node);
  if (!args || typeof node.execve !== "function") return;
  node.execve(node.execPath, args, node.env);
}
