/**
 * Builds the LangChain chat model a `ModelSpec` names. The provider classes are constructed
 * directly (not through `initChatModel`): construction is synchronous, needs no dynamic import,
 * and returns the concrete class with `bindTools`, so a bad spec fails at start-up, not on the
 * first message.
 *
 * Retries inside the provider SDKs are switched off (`maxRetries: 0`): `withModelRetry` is the one
 * retry policy, so rate-limit waits, backoff and cancellation behave the same for every provider.
 * Construction never touches the network.
 */
import { ChatAnthropic } from "@langchain/anthropic";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOllama } from "@langchain/ollama";
import { ChatOpenAI, ChatOpenAICompletions } from "@langchain/openai";
import { OfflineChatModel } from "./offline-model.ts";
import { apiKeyEnvVar, ModelConfigError, type ModelSpec } from "./spec.ts";

/** A chat model that can be given tools — every provider built here is one. */
export type ToolCallingChatModel = BaseChatModel & Required<Pick<BaseChatModel, "bindTools">>;

export interface CreateChatModelDeps {
  /** Replaces the global fetch of the provider SDK (tests answer requests without a network). */
  fetch?: typeof fetch;
  /** Signs offline replies; see OfflineChatModel. */
  offlineAgentName?: string;
}

// OpenAI-compatible servers usually ignore the key, but the SDK insists on one; an explicit
// placeholder also keeps the SDK from sending OPENAI_API_KEY from the environment to a third party.
const NO_KEY_PLACEHOLDER = "not-needed";

export function createChatModel(spec: ModelSpec, deps: CreateChatModelDeps = {}): ToolCallingChatModel {
  switch (spec.provider) {
    case "offline":
      return new OfflineChatModel({ agentName: deps.offlineAgentName });
    case "openai":
      return new ChatOpenAI({
        model: spec.model,
        apiKey: requireApiKey(spec),
        temperature: spec.temperature,
        maxRetries: 0,
        configuration: { baseURL: spec.baseUrl, fetch: deps.fetch },
      });
    case "openai-compatible":
      // Chat Completions is the API such servers implement; ChatOpenAI may pick the Responses API
      // for some model names, which they do not.
      return new ChatOpenAICompletions({
        model: spec.model,
        apiKey: spec.apiKey ?? NO_KEY_PLACEHOLDER,
        temperature: spec.temperature,
        maxRetries: 0,
        configuration: { baseURL: spec.baseUrl, fetch: deps.fetch },
      });
    case "anthropic":
      return new ChatAnthropic({
        model: spec.model,
        apiKey: requireApiKey(spec),
        temperature: spec.temperature,
        maxRetries: 0,
        anthropicApiUrl: spec.baseUrl,
        clientOptions: { fetch: deps.fetch },
      });
    case "ollama":
      return new ChatOllama({
        model: spec.model,
        baseUrl: spec.baseUrl,
        temperature: spec.temperature,
        maxRetries: 0,
        fetch: deps.fetch,
      });
  }
}

function requireApiKey(spec: Extract<ModelSpec, { provider: "openai" | "anthropic" }>): string {
  if (spec.apiKey) return spec.apiKey;
  const envVar = apiKeyEnvVar(spec.provider);
  throw new ModelConfigError(
    `${spec.provider}:${spec.model}`,
    `${spec.provider} needs an API key: set ${envVar} in the environment, or apiKey under model: in switchboard.yaml`,
    { withAcceptedForms: false },
  );
}
