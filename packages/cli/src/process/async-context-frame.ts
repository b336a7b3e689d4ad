/**
 * On Node 22, `AsyncLocalStorage` (which LangChain, LangGraph and our logs rely on) is built on
 * promise hooks: every promise the process creates pays an init, before and after hook. Measured
 * on `switchboard start` under Slack load that is 10–20 % of the CPU per event. Node 24 and later
 * build it on AsyncContextFrame instead, at no cost per promise; Node 22 has the same behind
 * `--experimental-async-context-frame`, a flag later versions refuse ("bad option"), so it cannot
 * sit in the `#!` line. `start` — the long-running command — replaces itself once, at startup, with
 * the same program run with that flag (`process.execve`: same process id, same open files and
 * terminal, signals arrive as before), before anything is loaded or listened to.
 */

export const ASYNC_CONTEXT_FRAME_FLAG = "--experimental-async-context-frame";

interface NodeProcess {
  readonly versions: { readonly node: string };
  readonly execArgv: readonly string[];
  readonly argv: readonly string[];
  readonly execPath: string;
  readonly env: NodeJS.ProcessEnv;
  readonly execve?: (file: string, args?: readonly string[], env?: NodeJS.ProcessEnv) => never;
}

/** The arguments to run this process again with AsyncContextFrame, or undefined when it needs none. */
export function asyncContextFrameArgs(node: NodeProcess): string[] | undefined {
  const major = Number(node.versions.node.split(".")[0]);
  if (major !== 22) return undefined;
  const options = node.env.NODE_OPTIONS ?? "";
  if (node.execArgv.includes(ASYNC_CONTEXT_FRAME_FLAG) || options.includes(ASYNC_CONTEXT_FRAME_FLAG))
    return undefined;
  return [node.execPath, ASYNC_CONTEXT_FRAME_FLAG, ...node.execArgv, ...node.argv.slice(1)];
}

/**
 * Replaces this process with itself under AsyncContextFrame when on Node 22 and `execve` exists
 * (22.15+, not on Windows); returns only when it did not (then `AsyncLocalStorage` works as before,
 * only dearer).
 */
export function restartWithAsyncContextFrame(node: NodeProcess): void {
  const args = asyncContextFrameArgs(node);
  if (!args || typeof node.execve !== "function") return;
  node.execve(node.execPath, args, node.env);
}
