/**
 * Builds the LangChain chat model a `ModelSpec` names. The provider classes are constructed
 * directly (not through `initChatModel`) and return the concrete class with `bindTools`, so a bad
 * spec fails at start-up, not on the first message.
 *
 * Each provider's library is imported only when a model of that provider is wanted: together they
 * take most of a second to load, and a configuration uses one of them, or none (offline).
 *
 * Retries inside the provider SDKs are switched off (`maxRetries: 0`): `withModelRetry` is the one
 * retry policy, so rate-limit waits, backoff and cancellation behave the same for every provider.
 *
 * Every remote model sends its requests through its endpoint's limiter (`endpointFetch`): one
 * `ModelEndpoints` per factory, so all the models a process builds — agents', memory's, background
 * tasks' — share each provider's capacity without knowing about it. The per-attempt timeout of
 * `modelCallPolicy` is applied there, from the moment a request is sent; the SDKs' own timers, which
 * would also count the wait for capacity, are only a last resort.
 * Construction never touches the network.
 */
import type * as AnthropicLibrary from "@langchain/anthropic";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type * as OllamaLibrary from "@langchain/ollama";
import type * as OpenAiLibrary from "@langchain/openai";
import { endpointFetch } from "./endpoint-fetch.ts";
import { endpointOf, ModelEndpoints } from "./model-endpoints.ts";
import { OfflineChatModel } from "./offline-model.ts";
import {
  apiKeyEnvVar,
  ModelConfigError,
  type ModelProvider,
  type ModelSpec,
  modelCallPolicy,
} from "./spec.ts";

/** A chat model that can be given tools — every provider built here is one. */
export type ToolCallingChatModel = BaseChatModel & Required<Pick<BaseChatModel, "bindTools">>;

export interface CreateChatModelDeps {
  /** Replaces the global fetch of the provider SDK (tests answer requests without a network). */
  fetch?: typeof fetch;
  /** Signs offline replies; see OfflineChatModel. */
  offlineAgentName?: string;
  /** Caps every answer (doctor's reachability probe asks for one token). */
  maxTokens?: number;
}

// OpenAI-compatible servers usually ignore the key, but the SDK insists on one; an explicit
// placeholder also keeps the SDK from sending OPENAI_API_KEY from the environment to a third party.
const NO_KEY_PLACEHOLDER = "not-needed";

/** Builds models synchronously, for the providers whose libraries were loaded with it. */
export type ChatModelFactory = (spec: ModelSpec, deps?: CreateChatModelDeps) => ToolCallingChatModel;

export interface ChatModelFactoryOptions {
  /** The process's model endpoints and their limits; a factory of its own otherwise. */
  readonly endpoints?: ModelEndpoints;
}

/**
 * Never what ends a call (the endpoint's request timeout and the caller's signal do): a bound for
 * the SDK's timer, which cannot tell waiting for capacity from waiting for the provider.
 */
const SDK_LAST_RESORT_TIMEOUT_MS = 60 * 60 * 1000;

/** Thrown by a ChatModelFactory asked for a provider it was not loaded for: a wiring mistake. */
export class ProviderNotLoadedError extends Error {
  constructor(provider: ModelProvider) {
    super(
      `the ${provider} model library was not loaded: include "${provider}" in the providers given to loadChatModelFactory`,
    );
    this.name = "ProviderNotLoadedError";
  }
}

/** The chat model `spec` names; loads its provider's library first (only that one). */
export async function createChatModel(
  spec: ModelSpec,
  deps: CreateChatModelDeps = {},
  options: ChatModelFactoryOptions = {},
): Promise<ToolCallingChatModel> {
  const factory = await loadChatModelFactory([spec.provider], options);
  return factory(spec, deps);
}

/**
 * Loads the libraries of `providers`, and only those, once; the factory then builds models of
 * those providers synchronously (for callers that wire many models, such as an agent team).
 */
export async function loadChatModelFactory(
  providers: Iterable<ModelProvider>,
  options: ChatModelFactoryOptions = {},
): Promise<ChatModelFactory> {
  const libraries = await loadProviderLibraries(new Set(providers));
  const endpoints = options.endpoints ?? new ModelEndpoints();
  return (spec, deps = {}) =>
    buildChatModel(spec, libraries, { ...deps, fetch: limitedFetch(spec, endpoints, deps) });
}

/** The fetch a remote model of `spec` sends its requests with: through its endpoint's limiter. */
function limitedFetch(
  spec: ModelSpec,
  endpoints: ModelEndpoints,
  deps: CreateChatModelDeps,
): typeof fetch | undefined {
  const endpoint = endpointOf(spec);
  if (endpoint === undefined) return deps.fetch;
  return endpointFetch(endpoints.limiter(endpoint), {
    fetch: deps.fetch,
    requestTimeoutMs: modelCallPolicy(spec).attemptTimeoutMs,
  });
}

interface ProviderLibraries {
  readonly openai: typeof OpenAiLibrary | undefined;
  readonly anthropic: typeof AnthropicLibrary | undefined;
  readonly ollama: typeof OllamaLibrary | undefined;
}

async function loadProviderLibraries(providers: ReadonlySet<ModelProvider>): Promise<ProviderLibraries> {
  const [openai, anthropic, ollama] = await Promise.all([
    providers.has("openai") || providers.has("openai-compatible") ? import("@langchain/openai") : undefined,
    providers.has("anthropic") ? import("@langchain/anthropic") : undefined,
    providers.has("ollama") ? import("@langchain/ollama") : undefined,
  ]);
  return { openai, anthropic, ollama };
}

function loaded<Library>(library: Library | undefined, provider: ModelProvider): Library {
  if (library === undefined) throw new ProviderNotLoadedError(provider);
  return library;
}

function buildChatModel(
  spec: ModelSpec,
  libraries: ProviderLibraries,
  deps: CreateChatModelDeps,
): ToolCallingChatModel {
  const timeout = SDK_LAST_RESORT_TIMEOUT_MS;
  switch (spec.provider) {
    case "offline":
      return new OfflineChatModel({ agentName: deps.offlineAgentName });
    case "openai": {
      const { ChatOpenAI } = loaded(libraries.openai, spec.provider);
      return new ChatOpenAI({
        model: spec.model,
        apiKey: requireApiKey(spec),
        temperature: spec.temperature,
        maxRetries: 0,
        timeout,
        ...(deps.maxTokens === undefined ? {} : { maxTokens: deps.maxTokens }),
        configuration: { baseURL: spec.baseUrl, fetch: deps.fetch },
      });
    }
    case "openai-compatible": {
      const { ChatOpenAICompletions } = loaded(libraries.openai, spec.provider);
      // Chat Completions is the API such servers implement; ChatOpenAI may pick the Responses API
      // for some model names, which they do not.
      return new ChatOpenAICompletions({
        model: spec.model,
        apiKey: spec.apiKey ?? NO_KEY_PLACEHOLDER,
        temperature: spec.temperature,
        maxRetries: 0,
        timeout,
        ...(deps.maxTokens === undefined ? {} : { maxTokens: deps.maxTokens }),
        configuration: { baseURL: spec.baseUrl, fetch: deps.fetch },
      });
    }
    case "anthropic": {
      const { ChatAnthropic } = loaded(libraries.anthropic, spec.provider);
      return new ChatAnthropic({
        model: spec.model,
        apiKey: requireApiKey(spec),
        temperature: spec.temperature,
        maxRetries: 0,
        anthropicApiUrl: spec.baseUrl,
        ...(deps.maxTokens === undefined ? {} : { maxTokens: deps.maxTokens }),
        clientOptions: { fetch: deps.fetch, timeout },
      });
    }
    case "ollama": {
      const { ChatOllama } = loaded(libraries.ollama, spec.provider);
      return new ChatOllama({
        model: spec.model,
        baseUrl: spec.baseUrl,
        temperature: spec.temperature,
        maxRetries: 0,
        ...(deps.maxTokens === undefined ? {} : { numPredict: deps.maxTokens }),
        fetch: deps.fetch,
      });
    }
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
