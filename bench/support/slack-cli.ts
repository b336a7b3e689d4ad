/**
 * The real `switchboard start` in its own process, as an operator runs it — Slack in HTTP mode
 * against the Slack stand-in in this process, embedded SQLite — and people mentioning the bot:
 * each mention is stored in the workspace and sent as Slack sends it (an `app_mention` and a
 * `message` event, signed), with the time to each acknowledgement and to the answer in its thread.
 */
import { freePort } from "../../test/services/free-port.ts";
import { CliProcess } from "../../test/support/crash/cli-process.ts";
import { crashConfig, writeCrashConfig } from "../../test/support/crash/crash-config.ts";
import { appMentionEvent, eventCallback, messageEvent } from "../../test/support/slack/event-payloads.ts";
import { FakeSlack } from "../../test/support/slack/fake-slack.ts";
import { ALICE, BOT_USER_ID, GENERAL } from "../../test/support/slack/workspace-state.ts";
import { tempDir } from "./temp-dir.ts";

export interface Mention {
  /** The thread the answer belongs in (the mention's own ts). */
  readonly threadTs: string;
  readonly sentAt: number;
  /** Milliseconds to the acknowledgement of each of its two events (pushed as they come). */
  readonly acks: number[];
  /** Both events delivered (acknowledged or refused). */
  readonly delivered: Promise<void>;
}

export interface SlackCliOptions {
  readonly name: string;
  /** The `model:` section. */
  readonly model: Record<string, unknown>;
  /** Extra top-level sections (engine, memory, modelEndpoints…). */
  readonly extra?: Record<string, unknown>;
}

export class SlackCli {
  readonly slack: FakeSlack;
  readonly cli: CliProcess;
  /** Events not acknowledged with 200 (status, or the connection error's code). */
  readonly failedAcks: string[] = [];
  readonly #answeredAt: Map<string, number>;
  readonly #dir: { remove(): void };

  private constructor(parts: {
    slack: FakeSlack;
    cli: CliProcess;
    answeredAt: Map<string, number>;
    dir: { remove(): void };
  }) {
    this.slack = parts.slack;
    this.cli = parts.cli;
    this.#answeredAt = parts.answeredAt;
    this.#dir = parts.dir;
  }

  static async start(options: SlackCliOptions): Promise<SlackCli> {
    const dir = tempDir(options.name);
    const answeredAt = new Map<string, number>();
    const slack = await FakeSlack.start({
      transport: "http",
      echoBotMessages: false,
      onBotMessage: (message) => {
        const thread = message.thread_ts;
        if (thread !== undefined && !answeredAt.has(thread)) answeredAt.set(thread, performance.now());
      },
    });
    try {
      const port = await freePort();
      const config = crashConfig({
        storeUrl: "sqlite://./data/switchboard.db",
        model: options.model,
        slackApiUrl: slack.api.apiUrl,
        port,
        lockTtlSeconds: 30,
        extra: { logLevel: "warn", ...options.extra },
      });
      const env = await writeCrashConfig(dir.path, config);
      const cli = await CliProcess.start({ cwd: dir.path, env, name: options.name }, 60_000);
      slack.connectHttp(port);
      return new SlackCli({ slack, cli, answeredAt, dir });
    } catch (error) {
      await slack.close();
      dir.remove();
      throw error;
    }
  }

  /** A new top-level mention (its own thread), sent now; `text` should name a token the model repeats. */
  mention(text: string): Mention {
    const message = this.slack.state.add({
      channel: GENERAL,
      text: `<@${BOT_USER_ID}> ${text}`,
      user: ALICE,
    });
    const sentAt = performance.now();
    const acks: number[] = [];
    const delivered = Promise.all(
      [eventCallback(appMentionEvent(message)), eventCallback(messageEvent(this.slack.state, message))].map(
        async (body) => {
          const started = performance.now();
          try {
            const delivery = await this.slack.deliver(body);
            acks.push(performance.now() - started);
            if (delivery.status !== 200) this.failedAcks.push(String(delivery.status));
          } catch (error) {
            // A connection the server never accepted: Slack counts it as not acknowledged.
            this.failedAcks.push(String((error as { cause?: { code?: string } }).cause?.code ?? error));
          }
        },
      ),
    ).then(() => undefined);
    return { threadTs: message.ts, sentAt, acks, delivered };
  }

  /** Milliseconds from sending the mention to its first answer in the thread; undefined while unanswered. */
  answerMs(mention: Mention): number | undefined {
    const at = this.#answeredAt.get(mention.threadTs);
    return at === undefined ? undefined : at - mention.sentAt;
  }

  /** Resolves once every mention has an answer, or when `timeoutMs` ran out (returns how many did). */
  async waitForAnswers(mentions: readonly Mention[], timeoutMs: number): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    const answered = () => mentions.filter((mention) => this.#answeredAt.has(mention.threadTs)).length;
    while (answered() < mentions.length && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    return answered();
  }

  async close(): Promise<void> {
    await this.cli.terminate();
    await this.slack.close();
    this.#dir.remove();
  }
}
