import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { type Colleague, consultTool } from "./consult.ts";
import { createHandoffTool, handoffDescription } from "./handoff.ts";
import { forgetBoundModel } from "./model-with-tools.ts";
import { sendMessageTool } from "./send-message.ts";
import {
  DEFAULT_MAX_CONSULT_DEPTH,
  DEFAULT_MAX_INTERIM_MESSAGES,
  type LimitsConfig,
  SUPERVISOR,
  type TeamConfig,
} from "./team-config.ts";
import { type GraphAgent, SITUATION_KEY, type TeamGraphOptions } from "./team-graph.ts";

export interface TeamRosterOptions {
  /** The team as configured at start: which agents there are, their models and tools. */
  readonly config: TeamConfig;
  readonly limits: LimitsConfig;
  /** The chat model for an agent's `model:` string; undefined → the default model. */
  readonly modelFor: (model: string | undefined) => BaseChatModel;
  /** Tools agents may name in their `tools:` list (every name was checked against it). */
  readonly tools?: Readonly<Record<string, StructuredToolInterface>>;
  /** Tools an agent has besides those its `tools:` list names. */
  readonly builtInTools?: (agent: string) => readonly StructuredToolInterface[];
  readonly acceptsImages: (model: string | undefined) => boolean;
  /** Extra system context per conversation, for the colleagues a specialist consults. */
  readonly contextFor: (key: string) => Promise<string | undefined>;
  readonly callModel: TeamGraphOptions["callModel"];
}

/**
 * The team's agents as its graph runs them: each one's prompt, model and tools (handoffs, consults,
 * interim messages, its configured and built-in tools). The graph keeps the agents it was built
 * with; a configuration reload changes their prompts and the specialists' descriptions in place,
 * and names what only a restart changes (which agents there are, their models and tools).
 */
export class TeamRoster {
  readonly #options: TeamRosterOptions;
  /** The graph's agents by name; their prompts change in place. */
  readonly #liveAgents = new Map<string, { -readonly [K in keyof GraphAgent]: GraphAgent[K] }>();
  /** The supervisor's handoff tool per specialist; their descriptions change in place. */
  readonly #handoffTools = new Map<string, ReturnType<typeof createHandoffTool>>();
  /** The specialists as consults see them; replaced by `reconfigure`. */
  #colleagues: Colleague[] = [];

  constructor(options: TeamRosterOptions) {
    this.#options = options;
  }

  /** The agents for the graph, made once: the supervisor first, then the specialists. */
  build(): GraphAgent[] {
    const { config, modelFor, limits, acceptsImages } = this.#options;
    const builtIn = (agent: string) => this.#options.builtInTools?.(agent) ?? [];
    const maxInterim = limits.maxInterimMessages ?? DEFAULT_MAX_INTERIM_MESSAGES;
    const speaking = maxInterim > 0 ? [sendMessageTool(maxInterim)] : [];
    const handoffs = config.specialists.map((s) => {
      const handoff = createHandoffTool(s.name, s.description);
      this.#handoffTools.set(s.name, handoff);
      return handoff;
    });
    const supervisorTools = [
      ...handoffs,
      ...this.#namedTools(config.supervisor.tools),
      ...builtIn(SUPERVISOR),
      ...speaking,
    ];
    const backToSupervisor = createHandoffTool(SUPERVISOR, "anything outside your speciality");
    this.#colleagues = config.specialists.map((s) => ({
      name: s.name,
      description: s.description,
      prompt: withName(s.name, s.prompt),
      model: modelFor(s.model),
    }));
    const consulting = config.maxConsultDepth ?? DEFAULT_MAX_CONSULT_DEPTH;
    const consult = (name: string) =>
      consulting > 0 && this.#colleagues.length > 1
        ? [
            consultTool(name, {
              // Read at each consult: a reload's new prompts and descriptions reach colleagues too.
              colleagues: () => this.#colleagues,
              maxDepth: consulting,
              maxSteps: limits.maxIterations,
              contextFor: this.#options.contextFor,
              situationOf: (run) => {
                const situation = run.configurable?.[SITUATION_KEY];
                return typeof situation === "string" ? situation : undefined;
              },
              callModel: this.#options.callModel,
            }),
          ]
        : [];
    const agents: GraphAgent[] = [
      {
        name: SUPERVISOR,
        prompt: withName(SUPERVISOR, config.supervisor.prompt),
        model: modelFor(config.supervisor.model),
        tools: supervisorTools,
        acceptsImages: acceptsImages(config.supervisor.model),
      },
      ...config.specialists.map((s, index) => ({
        name: s.name,
        prompt: withName(s.name, s.prompt),
        model: this.#colleagues[index]?.model ?? modelFor(s.model),
        tools: [
          ...this.#namedTools(s.tools),
          ...builtIn(s.name),
          ...speaking,
          ...consult(s.name),
          backToSupervisor,
        ],
        acceptsImages: acceptsImages(s.model),
      })),
    ];
    for (const agent of agents) this.#liveAgents.set(agent.name, agent);
    return agents;
  }

  /**
   * Moves the running agents from `was` to `next`: new prompts and specialists' descriptions from
   * now on; what differs in which agents there are, their models or tools is only named.
   */
  reconfigure(was: TeamConfig, next: TeamConfig): { changed: string[]; needsRestart: string[] } {
    const changed: string[] = [];
    const needsRestart: string[] = [];
    const specOf = (config: TeamConfig, name: string) =>
      name === SUPERVISOR
        ? { ...config.supervisor, description: "" }
        : config.specialists.find((specialist) => specialist.name === name);
    const nextNames = [SUPERVISOR, ...next.specialists.map((s) => s.name)];
    const nowNames = [SUPERVISOR, ...was.specialists.map((s) => s.name)];
    if (nextNames.join("\n") !== nowNames.join("\n")) needsRestart.push("team: which agents there are");
    for (const name of nowNames) {
      const before = specOf(was, name);
      const after = specOf(next, name);
      const live = this.#liveAgents.get(name);
      if (!before || !after || !live) continue;
      if (before.model !== after.model) needsRestart.push(`team: ${name}'s model`);
      if (JSON.stringify(before.tools) !== JSON.stringify(after.tools))
        needsRestart.push(`team: ${name}'s tools`);
      if (before.prompt !== after.prompt) {
        live.prompt = withName(name, after.prompt);
        changed.push(`team: ${name}'s prompt`);
      }
      const handoff = this.#handoffTools.get(name);
      if (handoff && before.description !== after.description) {
        handoff.description = handoffDescription(name, after.description);
        const supervisor = this.#liveAgents.get(SUPERVISOR);
        if (supervisor) forgetBoundModel(supervisor);
        changed.push(`team: ${name}'s description`);
      }
    }
    this.#colleagues = this.#colleagues.map((colleague) => {
      const after = next.specialists.find((one) => one.name === colleague.name);
      return after
        ? { ...colleague, prompt: withName(after.name, after.prompt), description: after.description }
        : colleague;
    });
    return { changed, needsRestart };
  }

  #namedTools(names: readonly string[]): StructuredToolInterface[] {
    const registry = this.#options.tools ?? {};
    return names.flatMap((name) => registry[name] ?? []);
  }
}

/** Every prompt opens with the agent's name, so models (and the offline model) know who speaks. */
function withName(name: string, prompt: string): string {
  return prompt.startsWith(`You are ${name}`) ? prompt : `You are ${name}.\n${prompt}`;
}
