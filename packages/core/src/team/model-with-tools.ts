import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { ChatRunnable } from "./streamed-call.ts";

/** What binding needs of an agent; the same object every call (the graph's agents). */
export interface ToolCallingAgent {
  readonly name: string;
  readonly model: BaseChatModel;
  readonly tools: readonly StructuredToolInterface[];
}

/** Agents' models bound to their own tools, once: binding converts every tool's schema for the provider. */
const boundModels = new WeakMap<ToolCallingAgent, ChatRunnable>();

export function modelWithTools(
  agent: ToolCallingAgent,
  attached: readonly StructuredToolInterface[],
): ChatRunnable {
  const tools = [...agent.tools, ...attached];
  if (tools.length === 0) return agent.model;
  const cached = attached.length === 0 ? boundModels.get(agent) : undefined;
  if (cached) return cached;
  const bound = agent.model.bindTools?.(tools);
  if (!bound) throw new Error(`the model of agent ${agent.name} cannot call tools`);
  if (attached.length === 0) boundModels.set(agent, bound);
  return bound;
}

/** Drops an agent's bound model, so the next call binds its tools again (a tool's description changed). */
export function forgetBoundModel(agent: ToolCallingAgent): void {
  boundModels.delete(agent);
}
