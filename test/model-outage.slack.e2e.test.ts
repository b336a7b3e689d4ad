/**
 * The model provider down, on Slack (the real adapter and Bolt against the stand-in, the app as
 * `switchboard start` builds it, the OpenAI SDK against the OpenAI-compatible stub answering 503):
 * the failure becomes a countdown that is replaced by the answer once the provider is back; `/stop`
 * cancels it; a newer message supersedes it; and a long outage opens the endpoint's circuit, so every
 * thread gets one message (not one per try) and the provider is not called by every turn — /health
 * and /metrics show the circuit open, then closed.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryLogger, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type App, buildApp } from "../packages/cli/src/app/build-app.ts";
import { loadConfig } from "../packages/cli/src/config/load-config.ts";
import { answer, fail } from "./support/model/chat-request.ts";
import { ModelStub } from "./support/model/model-stub.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import { BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

const MENTION = `<@${BOT_USER_ID}>`;
const COUNTDOWN = "The model is not answering — trying again in";
const SUPERSEDED =
  "_The model was not answering; your newer message replaced this one and is answered instead._";
const CANCELLED = "_The model was not answering; stopped — this will not be tried again._";

let app: App | undefined;
let slack: FakeSlack | undefined;
let stub: ModelStub | undefined;
let dir: string | undefined;
afterEach(async () => {
  await app?.close();
  await slack?.close();
  await stub?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  app = slack = stub = dir = undefined;
});

/** The provider: down (503 to everything) until `up`; then it answers each question by name. */
const provider = { up: false };

async function startApp(options: { circuit: Record<string, unknown>; firstDelaySeconds: number }) {
  provider.up = false;
  stub = await ModelStub.start((request) =>
    provider.up ? answer(`Answer to: ${request.lastUserText}`) : fail(503),
  );
  slack = await FakeSlack.start({ transport: "socket" });
  const config = slack.adapterConfig();
  if (!("appToken" in config)) throw new Error("the Slack stand-in is not in Socket Mode");
  dir = await mkdtemp(join(tmpdir(), "switchboard-outage-"));
  const yaml = {
    store: "sqlite://./data/switchboard.db",
    memory: { enabled: false },
    model: {
      ...stub.modelConfig({ maxRetries: 1 }),
      retryLater: { attempts: 5, firstDelaySeconds: options.firstDelaySeconds },
    },
    modelEndpoints: { circuit: options.circuit },
    http: { port: 0 },
    slack: { apiUrl: config.apiUrl, streaming: "off", workingIndicator: "off" },
  };
  await writeFile(join(dir, "switchboard.yaml"), JSON.stringify(yaml));
  const loaded = await loadConfig({
    cwd: dir,
    env: { SWITCHBOARD_SLACK_BOT_TOKEN: config.botToken, SWITCHBOARD_SLACK_APP_TOKEN: config.appToken },
  });
  const logger = createMemoryLogger();
  app = await buildApp({ loaded, logger, cwd: dir, print: () => {}, consoleUser: "ana" });
  await app.start();
  return { logger };
}

/** The bot's messages in a thread, as they read now (edits included), with their timestamps. */
function botMessages(thread: string) {
  return slack!.state
    .thread(GENERAL, thread)
    .filter((message) => message.user === BOT_USER_ID || message.bot_id)
    .map((message) => ({ ts: message.ts, text: message.text, edited: message.edited !== undefined }));
}
const texts = (thread: string) => botMessages(thread).map((message) => message.text);

async function health(): Promise<{ modelEndpoints: { circuit: string }[] }> {
  const response = await fetch(`${app!.httpUrl()}/health`);
  return (await response.json()) as { modelEndpoints: { circuit: string }[] };
}
async function circuitMetric(): Promise<string | undefined> {
  const text = await (await fetch(`${app!.httpUrl()}/metrics`)).text();
  return text.split("\n").find((line) => line.startsWith("switchboard_model_circuit_state{"));
}

describe("the model provider is down (Slack)", () => {
  it("posts a countdown, edits it on each failed try, and replaces it with the answer once the provider is back", {
    timeout: 60_000,
  }, async () => {
    const { logger } = await startApp({
      circuit: { openAfterFailures: 0 },
      firstDelaySeconds: 1,
    });
    const root = await slack!.say(GENERAL, `${MENTION} what is our refund policy?`);
    await waitFor("the countdown", () => texts(root.ts)[0]?.startsWith(`${COUNTDOWN} 1 s`), 20_000);
    const countdown = botMessages(root.ts)[0]!;
    // The first later try fails too: the same message counts down to the second, twice as far.
    await waitFor("the second countdown", () => texts(root.ts)[0]?.startsWith(`${COUNTDOWN} 2 s`), 20_000);
    provider.up = true;
    await waitFor("the answer", () => texts(root.ts)[0] === "Answer to: what is our refund policy?", 20_000);
    expect(botMessages(root.ts)).toEqual([
      { ts: countdown.ts, text: "Answer to: what is our refund policy?", edited: true },
    ]);
    await app!.idle();
    expect(await app!.store.sortedSets.count("retry-later:due")).toBe(0);
    expect(logger.lines.filter((line) => line.level === "error")).toEqual([]);
  });

  it("`@bot stop` cancels the waiting retry, and a newer message supersedes one", {
    timeout: 60_000,
  }, async () => {
    await startApp({ circuit: { openAfterFailures: 0 }, firstDelaySeconds: 60 });
    const stopped = await slack!.say(GENERAL, `${MENTION} first thread question`);
    await waitFor("the countdown", () => texts(stopped.ts)[0]?.startsWith(`${COUNTDOWN} 60 s`), 20_000);
    await slack!.say(GENERAL, `${MENTION} stop`, { threadTs: stopped.ts });
    await waitFor("the stop", () => texts(stopped.ts).length === 2, 20_000);
    const asked = () => stub!.requests.filter((request) => request.lastUserText === "first thread question");
    const askedBeforeStop = asked().length;
    expect(texts(stopped.ts)).toEqual([
      CANCELLED,
      "Stopped: the answer that was waiting for the model will not be tried again.",
    ]);

    const superseded = await slack!.say(GENERAL, `${MENTION} an older question`);
    await waitFor("its countdown", () => texts(superseded.ts)[0]?.startsWith(COUNTDOWN), 20_000);
    provider.up = true;
    await slack!.say(GENERAL, "a newer question", { threadTs: superseded.ts });
    await waitFor("the newer answer", () => texts(superseded.ts).length === 2, 20_000);
    expect(texts(superseded.ts)).toEqual([SUPERSEDED, "Answer to: a newer question"]);
    await app!.idle();
    // Nothing is left to try: neither the stopped nor the superseded question is answered later.
    expect(await app!.store.sortedSets.count("retry-later:due")).toBe(0);
    expect(asked()).toHaveLength(askedBeforeStop);
  });

  it("a long outage opens the circuit: one message per thread, the provider spared, every thread answered once it is back", {
    timeout: 90_000,
  }, async () => {
    await startApp({ circuit: { openAfterFailures: 3, halfOpenAfterSeconds: 3 }, firstDelaySeconds: 1 });
    const threads: Awaited<ReturnType<FakeSlack["say"]>>[] = [];
    for (let i = 1; i <= 8; i++) threads.push(await slack!.say(GENERAL, `${MENTION} question ${i}`));
    await waitFor(
      "a countdown in every thread",
      () => threads.every((root) => texts(root.ts)[0]?.startsWith(COUNTDOWN)),
      30_000,
    );
    await waitFor(
      "the circuit open in /health",
      async () => (await health()).modelEndpoints[0]?.circuit === "open",
    );
    expect(await circuitMetric()).toMatch(/ 2$/);
    // Eight turns of two attempts each would be sixteen calls; the circuit let three fail, plus its probes.
    const whileDown = stub!.received.value;
    expect(whileDown).toBeLessThan(8);

    provider.up = true;
    await waitFor(
      "every thread answered",
      () => threads.every((root, index) => texts(root.ts)[0] === `Answer to: question ${index + 1}`),
      60_000,
    );
    // One message per thread, edited from countdown to answer: never one per try.
    for (const root of threads) expect(botMessages(root.ts)).toHaveLength(1);
    expect((await health()).modelEndpoints[0]?.circuit).toBe("closed");
    expect(await circuitMetric()).toMatch(/ 0$/);
  });
});
