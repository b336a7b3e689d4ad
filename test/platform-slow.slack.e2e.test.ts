/**
 * Slack slow to take posts in some threads, on the app as `switchboard start` builds it (the real
 * adapter and Bolt against the stand-in, the OpenAI SDK against the stub): the turns whose answers
 * Slack has not acknowledged yet hold no CPU slot (`switchboard_cpu_slots_in_use` reads 0 on
 * /metrics while they wait), another thread is answered meanwhile, and the held answers land once
 * Slack answers — each exactly once.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryLogger, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type App, buildApp } from "../packages/cli/src/app/build-app.ts";
import { loadConfig } from "../packages/cli/src/config/load-config.ts";
import { holdPosts } from "./support/crash/held-posts.ts";
import { answer } from "./support/model/chat-request.ts";
import { ModelStub } from "./support/model/model-stub.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import type { WebApiStandIn } from "./support/slack/web-api-stand-in.ts";
import { BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

const MENTION = `<@${BOT_USER_ID}>`;
const SLOW = 3;

let app: App | undefined;
let slack: FakeSlack | undefined;
let stub: ModelStub | undefined;
let dir: string | undefined;
let logger: ReturnType<typeof createMemoryLogger> | undefined;
afterEach(async () => {
  await app?.close();
  await slack?.close();
  await stub?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  app = slack = stub = dir = undefined;
});

async function startApp(
  options: { slack?: Record<string, unknown>; engine?: Record<string, unknown> } = {},
): Promise<App> {
  stub = await ModelStub.start((request) => answer(`Answer to: ${request.lastUserText}`));
  slack = await FakeSlack.start({ transport: "socket" });
  const config = slack.adapterConfig();
  if (!("appToken" in config)) throw new Error("the Slack stand-in is not in Socket Mode");
  dir = await mkdtemp(join(tmpdir(), "switchboard-slow-slack-"));
  const yaml = {
    store: "sqlite://./data/switchboard.db",
    memory: { enabled: false },
    model: stub.modelConfig(),
    http: { port: 0 },
    slack: { apiUrl: config.apiUrl, streaming: "off", workingIndicator: "off", ...options.slack },
    ...(options.engine ? { engine: options.engine } : {}),
  };
  await writeFile(join(dir, "switchboard.yaml"), JSON.stringify(yaml));
  const loaded = await loadConfig({
    cwd: dir,
    env: { SWITCHBOARD_SLACK_BOT_TOKEN: config.botToken, SWITCHBOARD_SLACK_APP_TOKEN: config.appToken },
  });
  logger = createMemoryLogger();
  app = await buildApp({
    loaded,
    logger,
    print: () => {},
    cwd: dir,
    consoleUser: "ana",
  });
  await app.start();
  return app;
}

/** The value of one gauge on /metrics. */
async function gauge(name: string): Promise<number> {
  const text = await (await fetch(`${app!.httpUrl()}/metrics`)).text();
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name} `));
  if (!line) throw new Error(`/metrics has no ${name}`);
  return Number(line.slice(name.length + 1));
}

const botTexts = (thread: string) =>
  slack!.state
    .thread(GENERAL, thread)
    .filter((message) => message.user === BOT_USER_ID || message.bot_id)
    .map((message) => message.text);

describe("Slack slow to take posts", () => {
  it("holds no CPU slot while Slack has not answered; another thread is answered meanwhile", async () => {
    await startApp();
    const held = holdPosts(slack!.api, (text) => text.includes("slow question"), { before: true });
    const slow = [];
    for (let i = 1; i <= SLOW; i++) slow.push(await slack!.say(GENERAL, `${MENTION} slow question ${i}`));
    await held.held.atLeast(SLOW);
    for (const root of slow) expect(botTexts(root.ts)).toEqual([]);
    expect(await gauge("switchboard_running_turns")).toBe(SLOW);
    expect(await gauge("switchboard_cpu_slots_in_use")).toBe(0);

    const quick = await slack!.say(GENERAL, `${MENTION} quick question`);
    await waitFor("the quick thread's answer", () => botTexts(quick.ts).length === 1);
    expect(botTexts(quick.ts)[0]).toContain("quick question");

    held.release();
    for (const root of slow) await waitFor("a held answer to land", () => botTexts(root.ts).length === 1);
    await waitFor("every turn to end", async () => (await gauge("switchboard_running_turns")) === 0);
    for (const [index, root] of slow.entries()) {
      expect(botTexts(root.ts)).toHaveLength(1);
      expect(botTexts(root.ts)[0]).toContain(`slow question ${index + 1}`);
    }
  });

  it("a method Slack rate-limits for a minute holds no other call back; a rate-limited post waits its Retry-After and lands once", async () => {
    // The working indicator at once, as a reaction: its reactions.add is refused for a minute.
    await startApp({ slack: { workingIndicator: "reaction" }, engine: { typingDelayMs: 0 } });
    slack!.api.rateLimits.set("reactions.add", { retryAfterSeconds: 60, times: Infinity });
    const first = await slack!.say(GENERAL, `${MENTION} first question`);
    await waitFor("the first answer, without waiting out the reaction's minute", () =>
      botTexts(first.ts).length === 1 ? true : undefined,
    );
    expect(botTexts(first.ts)[0]).toContain("first question");
    expect(slack!.state.calls.filter((call) => call.method === "reactions.add")).toHaveLength(1);
    await waitFor("the refused indicator in the log", () =>
      logger!.lines.some(
        (line) => line.message === "Slack rate-limited the working indicator; none is shown until it allows",
      ),
    );

    // Slack refuses the next answer's post once, asking for a second.
    slack!.api.rateLimits.set("chat.postMessage", { retryAfterSeconds: 1, times: 1 });
    const second = await slack!.say(GENERAL, `${MENTION} second question`);
    await waitFor("the second answer, posted after its Retry-After", () =>
      botTexts(second.ts).length === 1 ? true : undefined,
    );
    expect(botTexts(second.ts)[0]).toContain("second question");
    const posts = slack!.state.calls.filter(
      (call) => call.method === "chat.postMessage" && String(call.args.text).includes("second question"),
    );
    expect(posts).toHaveLength(2);
    // Closing waits for the engine: nothing is left that would post the answer again.
    await app!.close();
    app = undefined;
    expect(botTexts(second.ts)).toHaveLength(1);
  });

  it.each([
    {
      failure: "answers 500",
      fail: (api: WebApiStandIn, once: () => boolean) => {
        api.responseGate = async ({ method }) => {
          if (method === "chat.postMessage" && once()) throw new Error("upstream request timeout");
        };
      },
    },
    {
      failure: "cuts the connection before answering",
      fail: (api: WebApiStandIn, once: () => boolean) => {
        api.cutAfterActing = (method) => method === "chat.postMessage" && once();
      },
    },
  ])("Slack posts an answer but $failure: the answer is in the thread once", async ({ fail }) => {
    await startApp();
    // Slack acts on the post, then fails to say so.
    let failures = 1;
    fail(slack!.api, () => failures-- > 0);
    const root = await slack!.say(GENERAL, `${MENTION} what changed today?`);
    await waitFor("the answer", () => (botTexts(root.ts).length > 0 ? true : undefined));
    await waitFor("the turn to end", async () => (await gauge("switchboard_running_turns")) === 0);
    await app!.close();
    app = undefined;
    expect(failures).toBeLessThan(1);
    expect(botTexts(root.ts)).toHaveLength(1);
    expect(botTexts(root.ts)[0]).toContain("what changed today?");
  });
});
