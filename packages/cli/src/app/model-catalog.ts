import type { ModelSpec } from "@switchboard/core";
import { apiKeyEnvVar, parseModelString } from "@switchboard/core/config";
import {
  describeModel,
  loadChatModelFactory,
  ModelEndpoints,
  type ToolCallingChatModel,
} from "@switchboard/core/host";
import type { LoadedConfig, ProviderKeys } from "../config/load-config.ts";
import type { SwitchboardConfig } from "../config/schema.ts";

/** The models of one configuration: the main `model:` and any agent's own `model:` string. */
export interface ModelCatalog {
  readonly defaultSpec: ModelSpec;
  /** The spec for an agent's `model:` string (undefined → the main model), with its provider's key. */
  specFor(model: string | undefined): ModelSpec;
  /**
   * A new chat model for a `model:` string the configuration names; throws ModelConfigError when
   * its provider's key is missing.
   */
  modelFor(model: string | undefined): ToolCallingChatModel;
  describe(model: string | undefined): string;
  /** Every model endpoint's limiter: all the catalog's models (and any built later) share them. */
  readonly endpoints: ModelEndpoints;
}

/**
 * The catalog of a loaded configuration. Loads the libraries of the providers its models use, and
 * no others: each one adds a noticeable part to start-up.
 */
export async function loadModelCatalog(loaded: LoadedConfig): Promise<ModelCatalog> {
  const { config } = loaded;
  const specFor = modelSpecResolver(config.model, loaded.providerKeys);
  const endpoints = new ModelEndpoints(config.modelEndpoints);
  const build = await loadChatModelFactory(
    configuredModels(config).map((model) => specFor(model).provider),
    { endpoints },
  );
  return {
    defaultSpec: config.model,
    endpoints,
    specFor,
    modelFor: (model) => build(specFor(model)),
    describe: (model) => describeModel(specFor(model)),
  };
}

/**
 * What an agent's `model:` string (undefined → the main model) stands for, with its provider's key.
 * An agent's model string cannot say how long to wait or how often to retry: it takes the main
 * model's `timeoutSeconds`, `firstTokenTimeoutSeconds` and `maxRetries`.
 */
export function modelSpecResolver(
  defaultSpec: ModelSpec,
  providerKeys: ProviderKeys,
): (model: string | undefined) => ModelSpec {
  return (model) => {
    if (model === undefined) return defaultSpec;
    const parsed = parseModelString(model);
    const spec = parsed.provider === "offline" ? parsed : { ...parsed, ...callLimitsOf(defaultSpec) };
    if ((spec.provider === "openai" || spec.provider === "anthropic") && providerKeys[spec.provider]) {
      return { ...spec, apiKey: providerKeys[spec.provider] };
    }
    return spec;
  };
}

type CallLimits = Pick<
  Extract<ModelSpec, { provider: "openai" }>,
  "maxRetries" | "timeoutSeconds" | "firstTokenTimeoutSeconds"
>;

function callLimitsOf(spec: ModelSpec): CallLimits {
  if (spec.provider === "offline") return {};
  return {
    ...(spec.maxRetries !== undefined ? { maxRetries: spec.maxRetries } : {}),
    ...(spec.timeoutSeconds !== undefined ? { timeoutSeconds: spec.timeoutSeconds } : {}),
    ...(spec.firstTokenTimeoutSeconds !== undefined
      ? { firstTokenTimeoutSeconds: spec.firstTokenTimeoutSeconds }
      : {}),
  };
}

/** Every `model:` string the configuration names (undefined: the main model). */
function configuredModels(config: SwitchboardConfig): (string | undefined)[] {
  return [
    undefined,
    config.team.supervisor.model,
    ...config.team.specialists.map((specialist) => specialist.model),
    config.memory.model,
    config.memory.summaryModel,
  ];
}

/** What an operator must set for a spec to work, or undefined when nothing is missing. */
export function missingModelKey(spec: ModelSpec): string | undefined {
  if ((spec.provider === "openai" || spec.provider === "anthropic") && !spec.apiKey) {
    return `${spec.provider} needs an API key: set ${apiKeyEnvVar(spec.provider)} in the environment`;
  }
  return undefined;
}
