/**
 * LangChain runs every step of a graph — each LangGraph node, each channel write, each edge's
 * route — inside `AsyncLocalStorageProviderSingleton.runWithConfig`, which works out the step's
 * callback configuration again and builds a new LangSmith `RunTree` for it (a fresh time-based id,
 * timestamps, a dozen environment reads) even when nothing traces. A turn takes about ten such
 * steps. Skipping them took ~30 % off the CPU of a two-node graph's run, and ~0.9 ms off a Slack
 * event's on `switchboard start` (most of it between the model's answer and the post). What the
 * steps read back from that context is their config (`getRunnableConfig`) and LangChain's context
 * variables; the tree itself is read only by a LangSmith tracer.
 *
 * `skipUntracedRunTrees` swaps that one method on LangChain's singleton: when no tracer can see the
 * step — no LangChain tracer among its callbacks, no traced run around it, LangSmith tracing not
 * switched on in the environment — the step runs in an object that inherits from one quiet tree
 * (`tracingEnabled: false`, built once) and carries the step's config and the context variables
 * around it. Otherwise LangChain's method runs, so tracing to LangSmith is as before. (langsmith's
 * own copy of a tree, `new RunTree(tree)`, saves only half: its constructor defines ~45 fields.)
 *
 * Written against @langchain/core 1.4 and langsmith 0.12; untraced-run-trees.test.ts runs real
 * graphs through both paths and fails when what the steps read from the context changes shape.
 */
import { _CONTEXT_VARIABLES_KEY, AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { getEnvironmentVariable } from "@langchain/core/utils/env";
import { RunTree } from "langsmith";

/** Where LangChain keeps a step's config on the context's run tree (`extra`). */
const CHILD_CONFIG = Symbol.for("lc:child_config");
/** What switches LangSmith tracing on, as @langchain/core reads it (`isTracingEnabled`). */
const TRACING_VARIABLES = [
  "LANGSMITH_TRACING_V2",
  "LANGCHAIN_TRACING_V2",
  "LANGSMITH_TRACING",
  "LANGCHAIN_TRACING",
] as const;
const TRACER_NAME = "langchain_tracer";

let installed = false;

/** Runs untraced graph steps without building a LangSmith run tree each (see above). Idempotent. */
export function skipUntracedRunTrees(): void {
  if (installed) return;
  installed = true;
  const provider = AsyncLocalStorageProviderSingleton;
  const langchainRunWithConfig = provider.runWithConfig.bind(provider);
  const quiet = new RunTree({ name: "<runnable_lambda>", tracingEnabled: false });
  provider.runWithConfig = function runWithConfig<T>(
    config: unknown,
    callback: () => T,
    avoidCreatingRootRunTree?: boolean,
  ): T {
    const storage = provider.getInstance();
    const around: unknown = storage.getStore();
    if (traced(config, around)) return langchainRunWithConfig(config, callback, avoidCreatingRootRunTree);
    let context: RunTree | Record<symbol, unknown> | undefined;
    if (!avoidCreatingRootRunTree) {
      // Every field and method from the one quiet tree; what a step may add to (its children, if
      // a `traceable` function runs inside; its metadata) and its config are its own.
      const tree: RunTree = Object.create(quiet);
      tree.child_runs = [];
      tree.extra = { metadata: {}, [CHILD_CONFIG]: config };
      context = tree;
    }
    const variables = contextVariablesOf(around);
    if (variables !== undefined) {
      context ??= {};
      Object.assign(context, { [_CONTEXT_VARIABLES_KEY]: variables });
    }
    return storage.run(context, callback);
  };
}

/**
 * True when a LangSmith tracer could see a step run with `config` inside the context `around`. The
 * tracing switches are LangChain's own, not our configuration: LangChain reads them at every step
 * through its `getEnvironmentVariable`, and this check asks the same function, so it sees what
 * LangChain sees (a library user's process, a variable set after start) and no step goes untraced.
 */
function traced(config: unknown, around: unknown): boolean {
  if (TRACING_VARIABLES.some((name) => getEnvironmentVariable(name) === "true")) return true;
  if (isRecord(around) && around.tracingEnabled === true) return true;
  if (!isRecord(config)) return false;
  const callbacks = config.callbacks;
  const handlers: unknown = Array.isArray(callbacks)
    ? callbacks
    : isRecord(callbacks)
      ? callbacks.handlers
      : undefined;
  return (
    Array.isArray(handlers) && handlers.some((handler) => isRecord(handler) && handler.name === TRACER_NAME)
  );
}

function contextVariablesOf(around: unknown): unknown {
  return isRecord(around) ? around[_CONTEXT_VARIABLES_KEY] : undefined;
}

function isRecord(value: unknown): value is Record<string | symbol, unknown> {
  return typeof value === "object" && value !== null;
}
