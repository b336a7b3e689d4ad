import { createChatModel, type ModelSpec } from "@switchboard/core";
import { describeModel } from "@switchboard/core/host";
import { missingModelKey, modelSpecResolver } from "../app/model-catalog.ts";
import type { LoadedConfig } from "../config/load-config.ts";
import type { CheckResult } from "./doctor-result.ts";

/** Long enough for a cold local model to load; an unreachable host fails long before. */
const PROBE_TIMEOUT_MS = 60_000;

/** Where each provider's SDK sends requests when `baseUrl` is not set (for the problem line). */
const DEFAULT_ENDPOINTS: Readonly<Record<Exclude<ModelSpec["provider"], "offline">, string>> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  ollama: "http://127.0.0.1:11434",
  "openai-compatible": "(baseUrl)",
};

export interface ModelCheckOptions {
  /** `--offline`: check keys only, send nothing to the provider. */
  readonly offline: boolean;
}

/**
 * Every distinct model the configuration uses has what its provider needs and answers a
 * one-token request, as the first message would need it to.
 */
export async function checkModels(loaded: LoadedConfig, options: ModelCheckOptions): Promise<CheckResult[]> {
  const { config } = loaded;
  const specFor = modelSpecResolver(config.model, loaded.providerKeys);
  const agentModels = [config.team.supervisor.model, ...config.team.specialists.map((s) => s.model)];
  const specs = new Map<string, ModelSpec>();
  for (const model of [undefined, ...agentModels]) {
    const spec = specFor(model);
    specs.set(describeModel(spec), spec);
  }
  return Promise.all([...specs].map(([description, spec]) => checkModel(description, spec, options)));
}

async function checkModel(
  description: string,
  spec: ModelSpec,
  options: ModelCheckOptions,
): Promise<CheckResult> {
  const missing = missingModelKey(spec);
  if (missing)
    return {
      name: "model",
      status: "problem",
      detail: `${description}: ${missing}`,
      fix: "export the key, or put apiKey under model: in the config file",
    };
  let model: Awaited<ReturnType<typeof createChatModel>>;
  try {
    model = await createChatModel(spec, { maxTokens: 1 });
  } catch (error) {
    return { name: "model", status: "problem", detail: `${description}: ${(error as Error).message}` };
  }
  if (spec.provider === "offline") return { name: "model", status: "ok", detail: description };
  if (options.offline)
    return { name: "model", status: "ok", detail: `${description} (key present; not contacted: --offline)` };
  const endpoint = spec.baseUrl ?? DEFAULT_ENDPOINTS[spec.provider];
  try {
    await model.invoke("Say OK.", { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return { name: "model", status: "ok", detail: `${description} (answered a one-token request)` };
  } catch (error) {
    return {
      name: "model",
      status: "problem",
      detail: `${description}: no answer from ${endpoint}: ${reasonOf(error)}`,
      fix: "check the model name, the key and baseUrl, and that the server is running (--offline skips this check)",
    };
  }
}

/** The SDKs say "Connection error."; the reason an operator can act on is in the cause. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const deeper = cause?.cause instanceof Error ? cause.cause.message : undefined;
  const causes = [cause?.message, deeper].filter((part) => part !== undefined && part !== "");
  return causes.length === 0 ? message : `${message} (${causes.join(": ")})`;
}
