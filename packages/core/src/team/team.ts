import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import type { Command } from "../commands/command.ts";
import type { Responder, Turn, TurnAnswer } from "../engine/responder.ts";
import { invokeWithRetry } from "../models/retry.ts";
import { DEFAULT_MODEL_CALL_POLICY } from "../models/spec.ts";
import { type Logger, silentLogger } from "../runtime/logger.ts";
import { endOfFailedRun, RUN_STEPS_KEY, type RunSteps } from "../steps/step-sink.ts";
import { ActiveAgentStore } from "./active-agents.ts";
import { handoffToolName } from "./handoff.ts";
import { COMMAND_PREFIX_KEY, limitMessages, TeamLimitError } from "./limits.ts";
import { RunJournal } from "./run-journal.ts";
import { outcomeText, type RunInput, type RunOutcome } from "./run-outcome.ts";
import { outcomeOf, startOf } from "./run-state.ts";
import { INTERIM_KEY } from "./send-message.ts";
import { TURN_EVENTS_KEY } from "./streamed-call.ts";
import { type AgentSummary, type FreshStartKind, type TeamControls, teamCommands } from "./team-commands.ts";
import { HUMAN, type LimitsConfig, SUPERVISOR, type TeamConfig } from "./team-config.ts";
import { buildTeamGraph, LEARNINGS_KEY, SITUATION_KEY, type TeamGraphOptions } from "./team-graph.ts";
import type { TeamOptions } from "./team-options.ts";
import { TeamRoster } from "./team-roster.ts";
import type { TeamStateValue } from "./team-state.ts";
import { unknownToolReferences } from "./tool-references.ts";

/**
 * The agent team as a Responder: a supervisor and specialists in one checkpointed graph, with
 * sticky routing — after a handoff the specialist answers the conversation directly (one model
 * call per follow-up) until /supervisor or /reset.
 */
export class Team implements Responder, TeamControls {
  readonly activeAgents: ActiveAgentStore;
  readonly commands: readonly Command[];
  readonly #options: TeamOptions;
  /** The team's configuration now: prompts and descriptions change with `reconfigure`. */
  #config: TeamConfig;
  /** One object for the graph's whole life: `reconfigure` changes its fields in place. */
  readonly #limits: { -readonly [K in keyof LimitsConfig]: LimitsConfig[K] };
  /** The agents the graph runs; a reload changes their prompts and descriptions in place. */
  readonly #roster: TeamRoster;
  readonly #graph: ReturnType<typeof buildTeamGraph>;
  readonly #journal: RunJournal;
  readonly #logger: Logger;
  readonly #callModel: TeamGraphOptions["callModel"];

  constructor(options: TeamOptions) {
    this.#options = options;
    this.#config = options.config;
    this.#limits = { ...options.limits };
    const [unknownTool] = unknownToolReferences(options.config, Object.keys(options.tools ?? {}));
    if (unknownTool) throw unknownTool;
    this.#logger = options.logger ?? silentLogger;
    this.activeAgents = options.activeAgents ?? new ActiveAgentStore(options.store);
    this.#journal = new RunJournal(options.store);
    this.#callModel = (call, signal) =>
      invokeWithRetry((_attempt, attemptSignal, firstToken) => call(attemptSignal, firstToken), {
        maxAttempts: (options.modelCalls ?? DEFAULT_MODEL_CALL_POLICY).maxAttempts,
        attemptTimeoutMs: (options.modelCalls ?? DEFAULT_MODEL_CALL_POLICY).attemptTimeoutMs,
        firstTokenTimeoutMs: (options.modelCalls ?? DEFAULT_MODEL_CALL_POLICY).firstTokenTimeoutMs,
        ...(signal ? { signal } : {}),
        onRetry: (event) =>
          this.#logger.warn("model call failed; retrying", {
            attempt: event.attempt,
            kind: event.kind,
            delayMs: event.delayMs,
            error: event.error,
          }),
      });
    this.#roster = new TeamRoster({
      config: options.config,
      limits: options.limits,
      modelFor: options.modelFor,
      ...(options.tools ? { tools: options.tools } : {}),
      ...(options.builtInTools ? { builtInTools: options.builtInTools } : {}),
      acceptsImages: (model) => options.images?.acceptsImages(model) ?? false,
      contextFor: options.contextFor ?? (async () => undefined),
      callModel: this.#callModel,
    });
    this.#graph = buildTeamGraph({
      journal: this.#journal,
      agents: this.#roster.build(),
      limits: this.#limits,
      checkpointer: options.checkpointer,
      contextFor: options.contextFor ?? (async () => undefined),
      attachedTools: options.attachedTools ?? (async () => []),
      needsApproval: options.needsApproval ?? (() => false),
      ...(options.images ? { loadImage: options.images.load } : {}),
      ...(options.toolStatus ? { toolStatus: options.toolStatus } : {}),
      callModel: this.#callModel,
    });
    this.commands = teamCommands(this);
  }

  get sticky(): boolean {
    return this.#options.routing.sticky;
  }

  agents(): AgentSummary[] {
    const { describeModel } = this.#options;
    const config = this.#config;
    return [
      {
        name: SUPERVISOR,
        description: "routes each new conversation to the right specialist",
        model: describeModel(config.supervisor.model),
      },
      ...config.specialists.map((s) => ({
        name: s.name,
        description: s.description,
        model: describeModel(s.model),
      })),
    ];
  }

  async respond(turn: Turn): Promise<TurnAnswer> {
    const outcome = await this.run({
      key: turn.key,
      userId: turn.message.author.id,
      signal: turn.signal,
      text: turn.text,
      ...(turn.onEvent ? { onEvent: turn.onEvent } : {}),
      ...(turn.commandPrefix ? { commandPrefix: turn.commandPrefix } : {}),
      ...(turn.attachments ? { attachments: turn.attachments } : {}),
      ...(turn.interim ? { interim: turn.interim } : {}),
    });
    const historyTokens = outcome.kind === "answered" ? outcome.historyTokens : undefined;
    const files = outcome.kind === "answered" ? outcome.files : undefined;
    return {
      text: outcomeText(outcome, turn.commandPrefix),
      agent: outcome.agent,
      ...(outcome.kind === "with-person" ? { silent: true } : {}),
      ...(historyTokens !== undefined ? { historyTokens } : {}),
      ...(files?.length ? { files } : {}),
    };
  }

  /** Whether the agent that would answer this conversation now takes images (active agent, else supervisor). */
  async imagesAccepted(key: string): Promise<boolean> {
    const images = this.#options.images;
    if (!images) return false;
    const active = this.sticky ? (await this.activeAgents.get(key))?.agent : undefined;
    const agent = this.#config.specialists.find((specialist) => specialist.name === active);
    return images.acceptsImages(agent ? agent.model : this.#config.supervisor.model);
  }

  /**
   * One graph run in a conversation: for a user's text, or resuming an approval. Routes to the
   * active agent (sticky) and persists a handoff. Tools read `thread_id` (the conversation key),
   * `user_id` and, when tracked, `request_id`/`run_id` from the run's configurable.
   */
  async run(input: RunInput): Promise<RunOutcome> {
    const holder = await this.activeAgents.get(input.key);
    // A person has the thread: what was said joins its history (the bot reads it when it is back),
    // and nobody else answers.
    if (holder?.agent === HUMAN) {
      if (input.text !== undefined) await this.#appendHuman(input.key, input.text, input.runId);
      return { kind: "with-person", agent: HUMAN };
    }
    const active = this.sticky ? holder : undefined;
    const start = await startOf(this.#graph, input, active?.agent ?? null);
    // Run again after it had ended (the process stopped before its answer was kept): what it
    // answered then, without a second run that would ask the model and call its tools again.
    if ("finished" in start) return this.#outcomeOf(input.key, active?.agent ?? null, start.finished);
    const wallSeconds = this.#limits.wallTimeSeconds;
    // Not AbortSignal.timeout: its timer, and the signals listening to it, would outlive the run
    // by the whole wall time (kilobytes per turn held for minutes); this one is cleared below.
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new DOMException("the turn ran out of time", "TimeoutError")),
      wallSeconds * 1000,
    );
    timer.unref();
    const signal = AbortSignal.any([input.signal, timeout.signal]);
    const { key, userId } = input;
    const [, situation, learnings] = await Promise.all([
      // Only before a new message's run: a resumed run goes on with the history it stopped in.
      input.resume === undefined && !input.resumed
        ? // The last session stays live (the sweep archives it later); the message is answered meanwhile.
          this.#bestEffort(key, "could not close the conversation's quiet session before the run", () =>
            this.#options.beforeRun?.(key),
          )
        : undefined,
      // A prompt without the date is better than no answer.
      this.#bestEffort(key, "could not tell the agents the date and place", () =>
        this.#options.situationFor?.(key, userId, Date.now()),
      ),
      // The store is down for a moment: the turn goes on without its learnings, and says so in the log.
      this.#bestEffort(key, "could not read the learnings for the prompt", () =>
        this.#options.learningsFor?.(key, userId),
      ),
    ]);
    let state: Record<string, unknown>;
    let steps: RunSteps | undefined;
    try {
      if (input.runId && input.resumed) await this.#journal.load(input.runId);
      steps = this.#options.stepsFor?.(input);
      state = await this.#graph.invoke(start.input, {
        configurable: {
          thread_id: input.key,
          user_id: input.userId,
          ...(input.requestId ? { request_id: input.requestId } : {}),
          ...(input.runId ? { run_id: input.runId } : {}),
          ...(input.onEvent ? { [TURN_EVENTS_KEY]: input.onEvent } : {}),
          ...(input.interim ? { [INTERIM_KEY]: input.interim } : {}),
          ...(input.resumed ? { resumed: true } : {}),
          ...(input.commandPrefix ? { [COMMAND_PREFIX_KEY]: input.commandPrefix } : {}),
          ...(situation ? { [SITUATION_KEY]: situation } : {}),
          ...(learnings ? { [LEARNINGS_KEY]: learnings } : {}),
          ...(steps ? { [RUN_STEPS_KEY]: steps } : {}),
        },
        signal,
        recursionLimit: this.#limits.maxIterations * 3 + 10,
        // One checkpoint per run, written when it ends (answered, interrupted or failed), instead of
        // one per step: a turn is re-run whole from its queued message after a crash, and each
        // step's checkpoint re-serialized the whole history (and cost a store round trip). What must
        // not happen twice in a re-run — tool calls — is kept by the run journal instead.
        durability: "exit",
      });
      steps?.finish("completed");
    } catch (error) {
      if (steps) {
        const ended = endOfFailedRun(error);
        steps.finish(ended.status, ended.error);
      }
      if (timeout.signal.aborted && !input.signal.aborted)
        throw new TeamLimitError("wall-time", limitMessages.wallTime(wallSeconds));
      throw error;
    } finally {
      clearTimeout(timer);
      if (input.runId) this.#journal.release(input.runId);
    }
    return this.#outcomeOf(input.key, active?.agent ?? null, state);
  }

  /** What a run that ended left in the conversation's state; a handoff it made is kept for the thread. */
  async #outcomeOf(
    key: string,
    activeAgent: string | null,
    state: Record<string, unknown>,
  ): Promise<RunOutcome> {
    await this.#persistActiveAgent(key, activeAgent, (state as TeamStateValue).activeAgent ?? null);
    return outcomeOf(state);
  }

  /** What a run can do without: its failure is logged and the run goes on (undefined). */
  async #bestEffort<T>(
    key: string,
    failure: string,
    work: () => Promise<T> | undefined,
  ): Promise<T | undefined> {
    try {
      return await work();
    } catch (error) {
      this.#logger.warn(failure, { key, error });
      return undefined;
    }
  }

  async #persistActiveAgent(key: string, before: string | null, after: string | null): Promise<void> {
    if (!this.sticky || before === after) return;
    if (after) await this.activeAgents.set(key, after);
    else await this.activeAgents.clear(key);
    this.#logger.info("active agent changed", { key, from: before ?? SUPERVISOR, to: after ?? SUPERVISOR });
  }

  /** The conversation's checkpointed state (messages, active agent), or undefined when it has none. */
  async conversationState(key: string): Promise<TeamStateValue | undefined> {
    const snapshot = await this.#graph.getState({ configurable: { thread_id: key } });
    const values = snapshot.values as TeamStateValue | undefined;
    return values && Object.keys(values).length > 0 ? values : undefined;
  }

  /** Lines other features add to /status (open requests…). */
  async extraStatusLines(key: string, viewer: string): Promise<string[]> {
    return (await this.#options.statusLines?.(key, viewer)) ?? [];
  }

  /** Back to the supervisor: the active agent is cleared in the store and in the graph state. */
  async returnToSupervisor(key: string): Promise<void> {
    await this.activeAgents.clear(key);
    if (await this.conversationState(key)) {
      await this.#graph.updateState({ configurable: { thread_id: key } }, { activeAgent: null });
    }
  }

  /**
   * A fresh start: no active agent, no checkpointed state; what else goes (or is kept) with it is
   * the `freshStart` hook's, whose sentences are returned for the reply.
   */
  async reset(key: string, userId = "", kind: FreshStartKind = "reset"): Promise<string[]> {
    let said: string[] = [];
    try {
      said = (await this.#options.freshStart?.(key, userId, kind)) ?? [];
    } catch (error) {
      // The thread's state is cleared anyway; the reply must not claim memory did its part.
      this.#logger.error("memory could not end the session for a fresh start", { key, kind, error });
      said = [
        "I could not archive what was said here just now, so my memory of it is unchanged; try again in a minute.",
      ];
    }
    await this.activeAgents.clear(key);
    await this.#options.checkpointer.deleteThread(key);
    return said;
  }

  /**
   * Adds a message the agent did not write in a turn (a background task's result) to the
   * conversation's history, so its agents read it from now on. Its id makes it idempotent: the same
   * id again replaces the message instead of adding a second. Nothing when the thread has no state.
   */
  async appendToHistory(key: string, message: { id: string; agent: string; text: string }): Promise<void> {
    if (!(await this.conversationState(key))) return;
    const update = {
      messages: [new AIMessage({ id: message.id, name: message.agent, content: message.text })],
    };
    await this.#graph.updateState({ configurable: { thread_id: key } }, update);
  }

  /** Adds a message to the history; named by its run, so the same run again (a crash) adds it once. */
  async #appendHuman(key: string, text: string, runId: string | undefined): Promise<void> {
    if (!(await this.conversationState(key))) return;
    const message = new HumanMessage(runId ? { content: text, id: `human:${runId}` } : text);
    await this.#graph.updateState({ configurable: { thread_id: key } }, { messages: [message] });
  }

  /** Replaces the conversation's model history (memory compaction and archiving); the active agent stays. */
  async replaceHistory(key: string, messages: readonly BaseMessage[]): Promise<void> {
    if (!(await this.conversationState(key))) return;
    const update = { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...messages] };
    await this.#graph.updateState({ configurable: { thread_id: key } }, update);
  }

  /**
   * Applies a new team configuration and limits while the team runs (a configuration reload):
   * agents' prompts, specialists' descriptions and the limits change for every model call from now
   * on, a running turn included. Which agents there are, their models and their tools are part of
   * the compiled graph: when those differ, they stay as they are and are named in `needsRestart`.
   */
  reconfigure(next: { config: TeamConfig; limits: LimitsConfig }): {
    readonly changed: string[];
    readonly needsRestart: string[];
  } {
    const { changed, needsRestart } = this.#roster.reconfigure(this.#config, next.config);
    const limitsChanged = (Object.keys(next.limits) as (keyof LimitsConfig)[]).filter(
      (key) => next.limits[key] !== this.#limits[key],
    );
    Object.assign(this.#limits, next.limits);
    changed.push(...limitsChanged.map((key) => `limits.${key}`));
    // What /agents shows follows what the agents now are told; the kept parts stay as they run.
    this.#config = {
      ...this.#config,
      supervisor: { ...this.#config.supervisor, prompt: next.config.supervisor.prompt },
      specialists: this.#config.specialists.map((specialist) => {
        const will = next.config.specialists.find((one) => one.name === specialist.name);
        return will ? { ...specialist, prompt: will.prompt, description: will.description } : specialist;
      }),
    };
    return { changed, needsRestart };
  }
}

export { handoffToolName };
