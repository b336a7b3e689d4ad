import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { Command } from "../commands/command.ts";
import type { Responder, Turn, TurnAnswer } from "../engine/responder.ts";
import { invokeWithRetry } from "../models/retry.ts";
import { type Logger, silentLogger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import { ActiveAgentStore } from "./active-agents.ts";
import { createHandoffTool, handoffToolName } from "./handoff.ts";
import { textOf } from "./history.ts";
import { limitMessages, TeamLimitError } from "./limits.ts";
import { type GraphAgent, buildTeamGraph } from "./team-graph.ts";
import { teamCommands } from "./team-commands.ts";
import { type LimitsConfig, type RoutingConfig, SUPERVISOR, type TeamConfig } from "./team-config.ts";
import { FRESH_TURN, type TeamStateValue } from "./team-state.ts";

export interface TeamOptions {
  readonly config: TeamConfig;
  readonly routing: RoutingConfig;
  readonly limits: LimitsConfig;
  readonly checkpointer: BaseCheckpointSaver;
  readonly store: Store;
  /** The chat model for an agent's `model:` string; undefined → the default model. */
  readonly modelFor: (model: string | undefined) => BaseChatModel;
  /** How /status names an agent's model. */
  readonly describeModel: (model: string | undefined) => string;
  /** Tools agents may name in their `tools:` list. */
  readonly tools?: Readonly<Record<string, StructuredToolInterface>>;
  /** Extra system context per conversation (memory). */
  readonly contextFor?: (key: string) => Promise<string | undefined>;
  readonly logger?: Logger;
}

export interface AgentSummary {
  readonly name: string;
  readonly description: string;
  readonly model: string;
}

export class UnknownToolError extends Error {
  constructor(agent: string, tool: string, known: readonly string[]) {
    super(`team: agent ${agent} lists tool "${tool}", which does not exist (known tools: ${known.join(", ") || "none"})`);
    this.name = "UnknownToolError";
  }
}

/**
 * The agent team as a Responder: a supervisor and specialists in one checkpointed graph, with
 * sticky routing — after a handoff the specialist answers the conversation directly (one model
 * call per follow-up) until /supervisor or /reset.
 */
export class Team implements Responder {
  readonly activeAgents: ActiveAgentStore;
  readonly commands: readonly Command[];
  readonly #options: TeamOptions;
  readonly #graph: ReturnType<typeof buildTeamGraph>;
  readonly #logger: Logger;

  constructor(options: TeamOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.activeAgents = new ActiveAgentStore(options.store);
    this.#graph = buildTeamGraph({
      agents: this.#graphAgents(),
      limits: options.limits,
      checkpointer: options.checkpointer,
      contextFor: options.contextFor ?? (async () => undefined),
      callModel: (call, signal) =>
        invokeWithRetry(call, {
          ...(signal ? { signal } : {}),
          onRetry: (event) => this.#logger.warn("model call failed; retrying", { attempt: event.attempt, kind: event.kind, delayMs: event.delayMs }),
        }),
    });
    this.commands = teamCommands(this);
  }

  get sticky(): boolean {
    return this.#options.routing.sticky;
  }

  agents(): AgentSummary[] {
    const { config, describeModel } = this.#options;
    return [
      { name: SUPERVISOR, description: "routes each new conversation to the right specialist", model: describeModel(config.supervisor.model) },
      ...config.specialists.map((s) => ({ name: s.name, description: s.description, model: describeModel(s.model) })),
    ];
  }

  async respond(turn: Turn): Promise<TurnAnswer> {
    const active = this.sticky ? await this.activeAgents.get(turn.key) : undefined;
    const wallMs = this.#options.limits.wallTimeSeconds * 1000;
    const timeout = AbortSignal.timeout(wallMs);
    const signal = AbortSignal.any([turn.signal, timeout]);
    let state: Awaited<ReturnType<typeof this.invoke>>;
    try {
      state = await this.invoke({ key: turn.key, text: turn.text, activeAgent: active?.agent ?? null, userId: turn.message.author.id, signal });
    } catch (error) {
      if (timeout.aborted && !turn.signal.aborted) {
        throw new TeamLimitError("wall-time", limitMessages.wallTime(this.#options.limits.wallTimeSeconds));
      }
      throw error;
    }
    const answeredBy = state.answeredBy ?? SUPERVISOR;
    if (this.sticky && (state.activeAgent ?? null) !== (active?.agent ?? null)) {
      if (state.activeAgent) await this.activeAgents.set(turn.key, state.activeAgent);
      else await this.activeAgents.clear(turn.key);
      this.#logger.info("active agent changed", { key: turn.key, from: active?.agent ?? SUPERVISOR, to: state.activeAgent ?? SUPERVISOR });
    }
    const last = state.messages.at(-1);
    const text = last && AIMessage.isInstance(last) ? textOf(last) : "";
    return { text, agent: answeredBy };
  }

  /**
   * One graph run for a user's text; exposed for follow-up runs that are not chat turns.
   * Tools read `thread_id` (the conversation key) and `user_id` from the run's configurable.
   */
  async invoke(run: { key: string; text: string; activeAgent: string | null; userId: string; signal: AbortSignal }) {
    return this.#graph.invoke(
      { messages: [new HumanMessage(run.text)], activeAgent: run.activeAgent, answeredBy: null, turn: FRESH_TURN },
      {
        configurable: { thread_id: run.key, user_id: run.userId },
        signal: run.signal,
        recursionLimit: this.#options.limits.maxIterations * 3 + 10,
      },
    );
  }

  /** The conversation's checkpointed state (messages, active agent), or undefined when it has none. */
  async conversationState(key: string): Promise<TeamStateValue | undefined> {
    const snapshot = await this.#graph.getState({ configurable: { thread_id: key } });
    const values = snapshot.values as TeamStateValue | undefined;
    return values && Object.keys(values).length > 0 ? values : undefined;
  }

  /** Back to the supervisor: the active agent is cleared in the store and in the graph state. */
  async returnToSupervisor(key: string): Promise<void> {
    await this.activeAgents.clear(key);
    if (await this.conversationState(key)) {
      await this.#graph.updateState({ configurable: { thread_id: key } }, { activeAgent: null });
    }
  }

  /** A fresh start: no active agent, no checkpointed state. */
  async reset(key: string): Promise<void> {
    await this.activeAgents.clear(key);
    await this.#options.checkpointer.deleteThread(key);
  }

  #graphAgents(): GraphAgent[] {
    const { config, modelFor } = this.#options;
    const supervisorTools = [
      ...config.specialists.map((s) => createHandoffTool(s.name, s.description)),
      ...this.#namedTools(SUPERVISOR, config.supervisor.tools),
    ];
    const backToSupervisor = createHandoffTool(SUPERVISOR, "anything outside your speciality");
    return [
      { name: SUPERVISOR, prompt: withName(SUPERVISOR, config.supervisor.prompt), model: modelFor(config.supervisor.model), tools: supervisorTools },
      ...config.specialists.map((s) => ({
        name: s.name,
        prompt: withName(s.name, s.prompt),
        model: modelFor(s.model),
        tools: [...this.#namedTools(s.name, s.tools), backToSupervisor],
      })),
    ];
  }

  #namedTools(agent: string, names: readonly string[]): StructuredToolInterface[] {
    const registry = this.#options.tools ?? {};
    return names.map((name) => {
      const found = registry[name];
      if (!found) throw new UnknownToolError(agent, name, Object.keys(registry));
      return found;
    });
  }
}

/** Every prompt opens with the agent's name, so models (and the offline model) know who speaks. */
function withName(name: string, prompt: string): string {
  return prompt.startsWith(`You are ${name}`) ? prompt : `You are ${name}.\n${prompt}`;
}

export { handoffToolName };
