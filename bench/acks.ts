import { freePort } from "../test/services/free-port.ts";
import { CliProcess } from "../test/support/crash/cli-process.ts";
import { crashConfig, writeCrashConfig } from "../test/support/crash/crash-config.ts";
import { appMentionEvent, eventCallback, messageEvent } from "../test/support/slack/event-payloads.ts";
import { FakeSlack } from "../test/support/slack/fake-slack.ts";
import { ALICE, BOT_USER_ID, GENERAL } from "../test/support/slack/workspace-state.ts";
import type { Figure } from "./support/figures.ts";
import { percentile, round } from "./support/stats.ts";
import { tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";

const IN_FLIGHT = 1_000;
const TARGET_MS = 100;

/**
 * Slack's 3-second rule under a burst: the real `switchboard start` (its own process, Slack HTTP
 * mode, embedded SQLite, memory on, the built-in instant offline model) gets 1,000 signed mentions
 * at once — each as Slack sends it, an `app_mention` and a `message` event — from the Slack stand-in
 * in this process. The figure is the p99 of send → HTTP acknowledgement, while the turns run.
 */
export async function measureAcks(): Promise<Figure[]> {
  const dir = tempDir("acks");
  const slack = await FakeSlack.start({ transport: "http" });
  const port = await freePort();
  const config = crashConfig({
    storeUrl: "sqlite://./data/switchboard.db",
    model: { provider: "offline" },
    slackApiUrl: slack.api.apiUrl,
    port,
    lockTtlSeconds: 30,
    extra: { memory: { enabled: true }, logLevel: "warn" },
  });
  const env = await writeCrashConfig(dir.path, config);
  const cli = await CliProcess.start({ cwd: dir.path, env, name: "acks" }, 60_000);
  slack.connectHttp(port);
  try {
    const acks: number[] = [];
    const failed: string[] = [];
    const timed = async (body: ReturnType<typeof eventCallback>) => {
      const started = performance.now();
      try {
        const delivery = await slack.deliver(body);
        acks.push(performance.now() - started);
        if (delivery.status !== 200) failed.push(String(delivery.status));
      } catch (error) {
        // A connection the server never accepted: Slack counts it as not acknowledged.
        failed.push(String((error as { cause?: { code?: string } }).cause?.code ?? error));
      }
    };
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async (_, i) => {
        const text = `<@${BOT_USER_ID}> ${message200("burst", i)}`;
        const message = slack.state.add({ channel: GENERAL, text, user: ALICE });
        await Promise.all([
          timed(eventCallback(appMentionEvent(message))),
          timed(eventCallback(messageEvent(slack.state, message))),
        ]);
      }),
    );
    const p99 = acks.length > 0 ? round(percentile(acks, 99)) : null;
    return [
      {
        key: "ackP99MsAt1000InFlight",
        value: p99,
        unit: "ms",
        baseline: { label: "ack p50", value: acks.length > 0 ? round(percentile(acks, 50)) : null },
        target: {
          text: `≤ ${TARGET_MS} ms, every event acknowledged`,
          met: p99 !== null && p99 <= TARGET_MS && failed.length === 0,
        },
        note: `the CLI in its own process; ${acks.length} acknowledgements of ${IN_FLIGHT * 2} events (${IN_FLIGHT} mentions × 2), max ${round(Math.max(0, ...acks))} ms, not acknowledged with 200: ${failed.length}${failed.length > 0 ? ` (${[...new Set(failed)].join(", ")})` : ""}`,
      },
    ];
  } finally {
    await cli.terminate();
    await slack.close();
    dir.remove();
  }
}
