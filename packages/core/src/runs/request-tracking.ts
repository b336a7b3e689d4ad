import type { Command } from "../commands/command.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import type { Team } from "../team/team.ts";
import { approvalCommands } from "./approval-commands.ts";
import { ApprovalGate } from "./approval-gate.ts";
import type { RunScheduler } from "./continuations.ts";
import { describeRequest } from "./request-record.ts";
import { RequestSweeper } from "./request-sweeper.ts";
import { RequestTracker } from "./request-tracker.ts";
import type { RequestsConfig } from "./runs-config.ts";
import { TrackedTeam } from "./tracked-team.ts";
import { WebhookReceiver } from "./webhook-receiver.ts";

/**
 * Cross-run tracking wired in one place. Build the tracker first (the Team takes `statusLines`),
 * then `track(team)`, then the Engine with `responder`/`continuations`/`commands`, then `bind(engine)`.
 */
export class RequestTracking {
  readonly tracker: RequestTracker;
  readonly #options: {
    store: Store;
    clock: Clock;
    logger: Logger;
    config: RequestsConfig;
    webhookSecret?: string;
  };
  #team: TrackedTeam | undefined;
  #scheduler: RunScheduler | undefined;
  readonly sweeper: RequestSweeper;
  readonly webhooks: WebhookReceiver | undefined;
  /** Decides waiting actions for /approve, /deny and the platforms' buttons (give it to the Engine). */
  readonly approvals: ApprovalGate;

  constructor(options: {
    store: Store;
    clock: Clock;
    logger: Logger;
    config: RequestsConfig;
    webhookSecret?: string;
  }) {
    this.#options = options;
    this.tracker = new RequestTracker(options.store, options.clock, options.config);
    const scheduler = () => this.#requireScheduler();
    this.approvals = new ApprovalGate({
      tracker: this.tracker,
      scheduler,
      atomic: options.store.atomic,
      clock: options.clock,
      admins: options.config.admins,
      logger: options.logger,
    });
    this.sweeper = new RequestSweeper({
      tracker: this.tracker,
      scheduler,
      clock: options.clock,
      logger: options.logger,
      timeouts: options.config,
    });
    this.webhooks = options.webhookSecret
      ? new WebhookReceiver({
          secret: options.webhookSecret,
          tracker: this.tracker,
          maxMessageChars: options.config.webhookMaxMessageChars,
          scheduler,
          clock: options.clock,
          logger: options.logger,
        })
      : undefined;
  }

  /** /status lines: the conversation's open requests and their runs. */
  readonly statusLines = async (key: string): Promise<string[]> => {
    const open = await this.tracker.openIn(key);
    if (open.length === 0) return [];
    const now = this.#options.clock.now();
    return ["Open requests:", ...open.map((request) => describeRequest(request, now))];
  };

  track(team: Team): TrackedTeam {
    this.#team = new TrackedTeam({ team, tracker: this.tracker, logger: this.#options.logger });
    return this.#team;
  }

  commands(): Command[] {
    return approvalCommands(this.approvals);
  }

  /**
   * Approves or denies a waiting action from outside its thread (the operator console, which
   * counts as an admin); throws UnknownRequestError or NotAwaitingApprovalError.
   */
  async decide(requestId: string, decision: { approved: boolean; by: string }): Promise<void> {
    await this.approvals.decideAsOperator(await this.tracker.require(requestId), decision);
  }

  /** How often the sweeper runs (notices, time-outs, retention of closed requests). */
  get sweepIntervalMs(): number {
    return this.#options.config.sweepIntervalSeconds * 1000;
  }

  /**
   * Connects to the engine that queues continuations and delivers; starts the sweeper on this
   * process's timer unless `sweep: false` (a cluster runs `sweeper.sweep()` once per cluster).
   */
  bind(engine: RunScheduler, options: { sweep?: boolean } = {}): void {
    this.#scheduler = engine;
    this.#team?.bind(engine);
    if (options.sweep !== false) this.sweeper.start(this.sweepIntervalMs);
  }

  async close(): Promise<void> {
    await this.sweeper.stop();
  }

  #requireScheduler(): RunScheduler {
    if (!this.#scheduler) throw new Error("RequestTracking.bind(engine) was not called");
    return this.#scheduler;
  }
}
