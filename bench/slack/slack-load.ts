import { FakeSlack } from "../../test/support/slack/fake-slack.ts";
import { BOT_USER_ID, GENERAL, type StoredMessage } from "../../test/support/slack/workspace-state.ts";
import { message200 } from "../support/text.ts";

/**
 * A Slack workspace stand-in that plays users: each `ask` is a new top-level mention in a channel
 * (its own thread), sent as Slack sends it — signed `app_mention` and `message` events over HTTP —
 * and resolves with the milliseconds until the bot's answer reached `chat.postMessage` in that thread.
 */
export class SlackLoad {
  readonly slack: FakeSlack;
  readonly #answeredAt = new Map<string, number>();
  readonly #waiting = new Map<string, (at: number) => void>();
  #asked = 0;

  private constructor(slack: FakeSlack) {
    this.slack = slack;
  }

  static async start(): Promise<SlackLoad> {
    let load: SlackLoad | undefined;
    const slack = await FakeSlack.start({
      transport: "http",
      onBotMessage: (message: StoredMessage) => load?.answered(message),
    });
    load = new SlackLoad(slack);
    return load;
  }

  answered(message: StoredMessage): void {
    if (message.thread_ts === undefined) return;
    const at = performance.now();
    const waiter = this.#waiting.get(message.thread_ts);
    if (waiter) {
      this.#waiting.delete(message.thread_ts);
      waiter(at);
    } else this.#answeredAt.set(message.thread_ts, at);
  }

  async ask(label: string): Promise<number> {
    this.#asked += 1;
    const started = performance.now();
    const root = await this.slack.say(GENERAL, `<@${BOT_USER_ID}> ${message200(label, this.#asked)}`);
    const early = this.#answeredAt.get(root.ts);
    if (early !== undefined) {
      this.#answeredAt.delete(root.ts);
      return early - started;
    }
    const at = await new Promise<number>((resolve) => this.#waiting.set(root.ts, resolve));
    return at - started;
  }

  close(): Promise<void> {
    return this.slack.close();
  }
}

/** Runs `ask` `count` times with at most `inFlight` pending, until done or `timeBoxMs` passed. */
export async function driveLoad(
  count: number,
  inFlight: number,
  timeBoxMs: number,
  ask: (index: number) => Promise<number>,
): Promise<{ latencies: number[]; seconds: number }> {
  const started = performance.now();
  const deadline = started + timeBoxMs;
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count && performance.now() < deadline) latencies.push(await ask(next++));
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { latencies, seconds: (performance.now() - started) / 1000 };
}
