import {
  apiKeyEnvVar,
  createChatModel,
  describeModel,
  type ModelSpec,
  parseModelString,
  type ToolCallingChatModel,
} from "@switchboard/core";
import type { ProviderKeys } from "../config/load-config.ts";

/** The models of one configuration: the main `model:` and any agent's own `model:` string. */
export interface ModelCatalog {
  readonly defaultSpec: ModelSpec;
  /** The spec for an agent's `model:` string (undefined → the main model), with its provider's key. */
  specFor(model: string | undefined): ModelSpec;
  /** A new chat model for an agent; throws ModelConfigError when its provider's key is missing. */
  modelFor(model: string | undefined): ToolCallingChatModel;
  describe(model: string | undefined): string;
}

export function createModelCatalog(defaultSpec: ModelSpec, providerKeys: ProviderKeys): ModelCatalog {
  const specFor = (model: string | undefined): ModelSpec => {
    if (model === undefined) return defaultSpec;
    const spec = parseModelString(model);
    if ((spec.provider === "openai" || spec.provider === "anthropic") && providerKeys[spec.provider]) {
      return { ...spec, apiKey: providerKeys[spec.provider] };
    }
    return spec;
  };
  return {
    defaultSpec,
    specFor,
    modelFor: (model) => createChatModel(specFor(model)),
    describe: (model) => describeModel(specFor(model)),
  };
}

/** What an operator must set for a spec to work, or undefined when nothing is missing. */
export function missingModelKey(spec: ModelSpec): string | undefined {
  if ((spec.provider === "openai" || spec.provider === "anthropic") && !spec.apiKey) {
    return `${spec.provider} needs an API key: set ${apiKeyEnvVar(spec.provider)} in the environment`;
  }
  return undefined;
}
