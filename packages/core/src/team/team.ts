import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  RemoveMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import {
  type BaseCheckpointSaver,
  INTERRUPT,
  isInterrupted,
  Command as LangGraphCommand,
  REMOVE_ALL_MESSAGES,
} from "@langchain/langgraph";
import { humanTurn, type LoadImage } from "../attachments/model-content.ts";
import { FILES_ARTIFACT_KEY, type OutboundFile } from "../attachments/stored-attachment.ts";
import type { Command } from "../commands/command.ts";
import type { Responder, Turn, TurnAnswer } from "../engine/responder.ts";
import { invokeWithRetry } from "../models/retry.ts";
import { DEFAULT_MODEL_CALL_POLICY, type ModelCallPolicy } from "../models/spec.ts";
import { type Logger, silentLogger } from "../runtime/logger.ts";
import { endOfFailedRun, RUN_STEPS_KEY, type RunSteps } from "../steps/step-sink.ts";
import type { Store } from "../store/types.ts";
import { ActiveAgentStore } from "./active-agents.ts";
import { handoffToolName } from "./handoff.ts";
import { estimateTokens, textOf } from "./history.ts";
import { COMMAND_PREFIX_KEY, limitMessages, TeamLimitError } from "./limits.ts";
import { RunJournal } from "./run-journal.ts";
import { outcomeText, type RunInput, type RunOutcome } from "./run-outcome.ts";
import { INTERIM_KEY } from "./send-message.ts";
import { TURN_EVENTS_KEY } from "./streamed-call.ts";
import { type AgentSummary, type FreshStartKind, type TeamControls, teamCommands } from "./team-commands.ts";
import { HUMAN, type LimitsConfig, type RoutingConfig, SUPERVISOR, type TeamConfig } from "./team-config.ts";
import {
  type ApprovalRequest,
  buildTeamGraph,
  LEARNINGS_KEY,
  SITUATION_KEY,
  type TeamGraphOptions,
} from "./team-graph.ts";
import { TeamRoster } from "./team-roster.ts";
import { FRESH_TURN, type TeamStateValue } from "./team-state.ts";
import { unknownToolReferences } from "./tool-references.ts";

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
  /**
   * Runs before a run that answers a new message reads the conversation's history (memory starts a
   * new session when the last one went quiet). A failure is logged and the run goes on.
   */
  readonly beforeRun?: (key: string) => Promise<void>;
  /** Extra system context per conversation (memory). */
  readonly contextFor?: (key: string) => Promise<string | undefined>;
  /**
   * The line every agent's prompt ends with: the asking person's date and time, the platform and
   * place. Computed once per run (every model call of the run sees the same line).
   */
  readonly situationFor?: (key: string, userId: string, now: number) => Promise<string | undefined>;
  /**
   * What the team keeps about the asking person, the conversation and the place (learnings), for
   * every agent's prompt. Read once per run.
   */
  readonly learningsFor?: (key: string, userId: string) => Promise<string | undefined>;
  /**
   * What else `/new` and `/reset` do to the conversation (memory archives its session…): runs
   * before the history is cleared and returns the sentences that say so.
   */
  readonly freshStart?: (key: string, userId: string, kind: FreshStartKind) => Promise<string[]>;
  /** Who answers each conversation; shared with whatever else changes it (handing a thread to a person). */
  readonly activeAgents?: ActiveAgentStore;
  /** Tools an agent has besides those its `tools:` list names (start_task, for the agents tasks allow). */
  readonly builtInTools?: (agent: string) => readonly StructuredToolInterface[];
  /** Tools attached to a conversation's agent at run time (find_tools). */
  readonly attachedTools?: (key: string, agent: string) => Promise<StructuredToolInterface[]>;
  /** Tools that wait for a person's approval before they run. */
  readonly needsApproval?: (toolName: string) => boolean;
  /** A tool's progress text (its `status`), shown while it runs; undefined → a plain default. */
  readonly toolStatus?: (toolName: string) => string | undefined;
  /** More lines for /status (open requests…); `viewer` is who asked, for lines only admins see. */
  readonly statusLines?: (key: string, viewer: string) => Promise<string[]>;
  /**
   * Where one graph run's model and tool calls are recorded (the run-steps log), asked for as the
   * graph starts; the team finishes it when the graph ends.
   */
  readonly stepsFor?: (input: RunInput) => RunSteps | undefined;
  /** Attempts and per-attempt timeout of every model call (the `model:` config); defaults otherwise. */
  readonly modelCalls?: ModelCallPolicy;
  /** Which models take images, and where the history's images are loaded from for a model call. */
  readonly images?: {
    readonly acceptsImages: (model: string | undefined) => boolean;
    readonly load: LoadImage;
  };
  readonly logger?: Logger;
}

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
    const start = await this.#startOf(input, active?.agent ?? null);
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

  /** What a run that ended left in the conversation's state: its answer, its question, or its stop. */
  async #outcomeOf(
    key: string,
    activeAgent: string | null,
    state: Record<string, unknown>,
  ): Promise<RunOutcome> {
    const values = state as TeamStateValue;
    await this.#persistActiveAgent(key, activeAgent, values.activeAgent ?? null);
    const agent = values.answeredBy ?? SUPERVISOR;
    if (isInterrupted<ApprovalRequest>(state)) {
      const approval = state[INTERRUPT][0]?.value;
      if (approval) return { kind: "awaiting-approval", approval, agent };
    }
    if (values.stoppedBy) return { kind: "stopped-for-tool", tool: values.stoppedBy, agent };
    const last = values.messages.at(-1);
    const files = filesOfTurn(values.messages);
    return {
      kind: "answered",
      text: last && AIMessage.isInstance(last) ? textOf(last) : "",
      agent,
      historyTokens: estimateTokens(values.messages),
      ...(files.length > 0 ? { files } : {}),
    };
  }

  /**
   * What the graph is given: the user's text as a fresh turn, an approval decision, or — for a run
   * stopped part-way (its checkpoint names it and still has steps to take) — nothing, so the graph
   * continues where it stopped instead of hearing the message twice. A run that is run again after
   * it ended (its checkpoint names it, has no steps left and still ends with what it answered) is not
   * given anything: it is `finished`.
   */
  async #startOf(
    input: RunInput,
    activeAgent: string | null,
  ): Promise<{ readonly input: GraphInput } | { readonly finished: Record<string, unknown> }> {
    if (input.resume !== undefined) return { input: new LangGraphCommand({ resume: input.resume }) };
    if (input.resumed && input.runId) {
      const snapshot = await this.#graph.getState({ configurable: { thread_id: input.key } });
      const values = snapshot.values as Partial<TeamStateValue>;
      if (values.runId === input.runId) {
        if (snapshot.next.length > 0) return { input: null };
        // Its answer must still be there: archiving a quiet session since then leaves no history.
        if (values.stoppedBy || AIMessage.isInstance(values.messages?.at(-1)))
          return { finished: snapshot.values };
      }
    }
    const text = [input.text ?? "", input.attachments?.modelText ?? ""]
      .filter((part) => part !== "")
      .join("\n\n");
    return {
      input: {
        messages: [humanTurn(text, input.attachments?.images ?? [])],
        activeAgent,
        answeredBy: null,
        stoppedBy: null,
        runId: input.runId ?? null,
        turn: FRESH_TURN,
      },
    };
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

/** What the team's graph is invoked with: a fresh turn, an approval decision, or null (go on). */
type GraphInput = Parameters<ReturnType<typeof buildTeamGraph>["invoke"]>[0];

/** Files the tools of the run's latest turn returned (artifacts of the tool results after the user's message). */
function filesOfTurn(messages: readonly BaseMessage[]): OutboundFile[] {
  const start = messages.findLastIndex((message) => HumanMessage.isInstance(message));
  return messages.slice(start + 1).flatMap((message) => {
    if (!ToolMessage.isInstance(message)) return [];
    const artifact: unknown = message.artifact;
    if (typeof artifact !== "object" || artifact === null) return [];
    const files: unknown = (artifact as Record<string, unknown>)[FILES_ARTIFACT_KEY];
    return Array.isArray(files) ? (files as OutboundFile[]) : [];
  });
}

export { handoffToolName };
