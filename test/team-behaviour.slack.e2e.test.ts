/**
 * How the team behaves while it works, on Slack (the real adapter and Bolt against the stand-in, the
 * app as `switchboard start` builds it, an OpenAI-compatible model server answering by script):
 * `send_message` posts in the thread before the answer, in order, and closes an open preview first;
 * it stops at `limits.maxInterimMessages`; `consult` asks a colleague whose answer reaches only the
 * asking specialist, counted as the colleague's tokens, within `team.maxConsultDepth`.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryLogger, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type App, buildApp } from "../packages/cli/src/app/build-app.ts";
import { loadConfig } from "../packages/cli/src/config/load-config.ts";
import { usageDay } from "../packages/core/src/usage/usage-book.ts";
import { type ChatRequest, type StubReply, textOf } from "./support/model/chat-request.ts";
import { ModelStub } from "./support/model/model-stub.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import { ALICE, BOT_USER_ID, GENERAL, TEAM_ID } from "./support/slack/workspace-state.ts";
import { ToolStandIn } from "./support/tools/tool-stand-in.ts";

const MENTION = `<@${BOT_USER_ID}>`;
const INTERIM = "Found three options, checking prices…";
const TECH_ANSWER = "A sync error means the bank feed is stale: reconnect the bank.";

/** Tool results of one tool this request's history holds since the user's last message, oldest first. */
function resultsOf(request: ChatRequest, tool: string): string[] {
  const messages = request.body.messages;
  const start = messages.findLastIndex((message) => message.role === "user");
  const names = new Map<string, string>();
  const results: string[] = [];
  for (const message of messages.slice(start + 1)) {
    for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
    if (message.role === "tool" && message.tool_call_id && names.get(message.tool_call_id) === tool)
      results.push(textOf(message.content));
  }
  return results;
}

const call = (name: string, args: Record<string, unknown>, extra: Partial<StubReply> = {}): StubReply =>
  ({ kind: "answer", toolCalls: [{ name, args }], ...extra }) as StubReply;
const say = (text: string, extra: Partial<StubReply> = {}): StubReply =>
  ({ kind: "answer", text, ...extra }) as StubReply;

/** The team's model: what each agent does is read from its prompt, the question and the history. */
function teamScript(request: ChatRequest): StubReply {
  const { system, lastUserText: question } = request;
  if (system.includes("asks you one question")) {
    // A consulted colleague: tech_support consults scheduling when it may (depth 2), then answers.
    if (system.startsWith("You are tech_support") && request.toolNames.includes("consult")) {
      const heard = resultsOf(request, "consult");
      if (heard.length === 0)
        return call("consult", { agent: "scheduling", question: "When is the next bank sync?" });
      return say(`${TECH_ANSWER} ${heard[0]}`);
    }
    if (system.startsWith("You are tech_support")) return say(TECH_ANSWER);
    if (system.startsWith("You are scheduling")) return say("The next bank sync runs at 06:00.");
  }
  if (system.startsWith("You are billing")) {
    if (/thanks/i.test(question)) return say("You are welcome, billing here.");
    const heard = resultsOf(request, "consult");
    if (/sync error/i.test(question)) {
      // Two wrong consults first (an unknown name, itself), then the right colleague.
      if (heard.length === 0) return call("consult", { agent: "nobody", question: "Anyone?" });
      if (heard.length === 1) return call("consult", { agent: "billing", question: "Me?" });
      if (heard.length === 2)
        return call("consult", { agent: "tech_support", question: "What does a sync error mean?" });
      return say(`Billing here. ${heard.at(-1)?.replace(/^tech_support answers: /, "")}`);
    }
    return say("Billing here.");
  }
  if (/invoice/i.test(question) && resultsOf(request, "transfer_to_billing").length === 0)
    return call("transfer_to_billing", {});
  if (/flights/i.test(question)) {
    // Some text first, written slowly (a preview opens), then the message: the preview is closed.
    if (resultsOf(request, "send_message").length === 0)
      return call(
        "send_message",
        { text: INTERIM },
        { text: "Let me look at the flights", chunkDelayMs: 200 },
      );
    return say("The cheapest is option B, at 120 EUR.", { chunkDelayMs: 50 });
  }
  if (/refund/i.test(question)) {
    // After the approval, in the follow-up run: a message first, then the answer.
    if (resultsOf(request, "refund").length === 0) return call("refund", { amount: 40 });
    if (resultsOf(request, "send_message").length === 0)
      return call("send_message", { text: "The refund is going through, confirming with the bank…" });
    return say("Refund done: 40 EUR.");
  }
  if (/keep me posted/i.test(question)) {
    const sent = resultsOf(request, "send_message");
    if (sent.length < 4) return call("send_message", { text: `Update ${sent.length + 1}` });
    return say(`Done. ${sent.at(-1)}`);
  }
  return say(`You said: ${question}`);
}

let app: App | undefined;
let slack: FakeSlack | undefined;
let stub: ModelStub | undefined;
let dir: string | undefined;
let tools: ToolStandIn | undefined;
afterEach(async () => {
  await tools?.close();
  tools = undefined;
  await app?.close();
  await slack?.close();
  await stub?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  app = undefined;
  slack = undefined;
  stub = undefined;
});

async function startApp(
  options: { maxConsultDepth?: number; maxInterimMessages?: number; refundUrl?: string } = {},
) {
  stub = await ModelStub.start(teamScript);
  slack = await FakeSlack.start({ transport: "socket" });
  const config = slack.adapterConfig();
  if (!("appToken" in config)) throw new Error("the Slack stand-in is not in Socket Mode");
  dir = await mkdtemp(join(tmpdir(), "switchboard-team-behaviour-"));
  const model = stub.modelConfig();
  await writeFile(
    join(dir, "switchboard.yaml"),
    [
      "store: sqlite://./data/switchboard.db",
      `model: { provider: ${model.provider}, baseUrl: "${String(model.baseUrl)}", model: stub, apiKey: x }`,
      "memory:",
      "  enabled: false",
      ...(options.maxInterimMessages === undefined
        ? []
        : ["limits:", `  maxInterimMessages: ${options.maxInterimMessages}`]),
      "team:",
      ...(options.maxConsultDepth === undefined ? [] : [`  maxConsultDepth: ${options.maxConsultDepth}`]),
      "  supervisor:",
      "    prompt: Hand billing questions to billing.",
      ...(options.refundUrl ? ["    tools: [refund]"] : []),
      "  specialists:",
      "    - name: billing",
      "      description: invoices and payments",
      "      prompt: You answer billing questions.",
      "    - name: tech_support",
      "      description: errors and connections",
      "      prompt: You fix technical problems.",
      "    - name: scheduling",
      "      description: when things happen",
      "      prompt: You know every schedule.",
      ...(options.refundUrl
        ? [
            "tools:",
            "  - name: refund",
            "    description: refund a charge",
            `    url: ${options.refundUrl}`,
            "    requiresApproval: true",
          ]
        : []),
      "slack:",
      `  apiUrl: ${config.apiUrl}`,
      "  streamEditIntervalMs: 250",
      "",
    ].join("\n"),
  );
  const loaded = await loadConfig({
    cwd: dir,
    env: { SWITCHBOARD_SLACK_BOT_TOKEN: config.botToken, SWITCHBOARD_SLACK_APP_TOKEN: config.appToken },
  });
  const logger = createMemoryLogger();
  app = await buildApp({ loaded, logger, cwd: dir, print: () => {}, consoleUser: "ana" });
  await app.start();
  return { app, slack, stub, logger };
}

function botTexts(channel: string, thread: string): string[] {
  return slack!.state
    .thread(channel, thread)
    .filter((message) => message.user === BOT_USER_ID || message.bot_id)
    .map((message) => message.text);
}

async function stepsOf(key: string) {
  await app!.observability.flushed();
  const [run] = (await app!.observability.steps?.runsOfConversation(key)) ?? [];
  if (!run) throw new Error(`no run in ${key}`);
  return { run, steps: (await app!.observability.steps?.steps(run.runId)) ?? [] };
}

describe("messages while the team works", () => {
  it("posts an interim message before the answer, in order, closing the open preview first", {
    timeout: 30_000,
  }, async () => {
    const { slack, logger } = await startApp();
    const root = await slack.say(GENERAL, `${MENTION} find me flights to Lisbon`);
    await waitFor("the answer", () => botTexts(GENERAL, root.ts).length === 2, 20_000);
    await app!.idle();
    // The preview that showed "Let me look…" became the interim message; the answer is a new one below.
    expect(botTexts(GENERAL, root.ts)).toEqual([INTERIM, "The cheapest is option B, at 120 EUR."]);
    // The preview's message was stopped and then edited into the interim message.
    const interim = slack.state.thread(GENERAL, root.ts).find((message) => message.text === INTERIM);
    const started = slack.state.callsTo("chat.startStream");
    expect(started.length).toBeGreaterThanOrEqual(1);
    expect(
      slack.state.callsTo("chat.update").some((args) => args.ts === interim?.ts && args.text === INTERIM),
    ).toBe(true);
    expect(slack.api.streams.openStreams()).toEqual([]);
    const { steps } = await stepsOf(`slack:${TEAM_ID}:${GENERAL}:${root.ts}`);
    // The steps log counts the message as a tool call of the run, done.
    expect(
      steps.flatMap((step) => (step.kind === "tool_call" ? [`${step.tool}: ${step.outcome}`] : [])),
    ).toEqual(["send_message: ok"]);
    expect(logger.lines.filter((line) => line.level === "error")).toEqual([]);
  });

  it("stops at limits.maxInterimMessages and tells the agent so", { timeout: 30_000 }, async () => {
    const { slack, stub } = await startApp({ maxInterimMessages: 2 });
    const root = await slack.say(GENERAL, `${MENTION} keep me posted while you work`);
    await waitFor("the answer", () => botTexts(GENERAL, root.ts).some((text) => text.startsWith("Done.")));
    await app!.idle();
    const texts = botTexts(GENERAL, root.ts);
    expect(texts.slice(0, 2)).toEqual(["Update 1", "Update 2"]);
    expect(texts).toHaveLength(3);
    // The third and fourth were refused; the model read why.
    const last = stub.requests.at(-1);
    const results = last ? resultsOf(last, "send_message") : [];
    expect(results).toHaveLength(4);
    expect(results.slice(2).every((text) => text.includes("the most allowed"))).toBe(true);
    expect(texts[2]).toContain("the most allowed");
    const { steps } = await stepsOf(`slack:${TEAM_ID}:${GENERAL}:${root.ts}`);
    expect(
      steps.flatMap((step) => (step.kind === "tool_call" ? [`${step.tool}: ${step.outcome}`] : [])),
    ).toEqual(["send_message: ok", "send_message: ok", "send_message: error", "send_message: error"]);
  });
});

describe("messages in a follow-up run", () => {
  it("after an approval, the resumed run posts its message before its answer", {
    timeout: 30_000,
  }, async () => {
    tools = await ToolStandIn.start();
    const { slack } = await startApp({ refundUrl: tools.url });
    const root = await slack.say(GENERAL, `${MENTION} refund my 40 EUR`);
    const prompt = await waitFor("the approval prompt", () =>
      slack.state
        .thread(GENERAL, root.ts)
        .find((message) => (message.blocks ?? []).length > 0 && message.bot_id),
    );
    await slack.pressButton(prompt, "switchboard_approve", ALICE);
    await waitFor("the answer", () => botTexts(GENERAL, root.ts).includes("Refund done: 40 EUR."));
    await app!.idle();
    expect(botTexts(GENERAL, root.ts).slice(1)).toEqual([
      "The refund is going through, confirming with the bank…",
      "Refund done: 40 EUR.",
    ]);
  });
});

describe("consults", () => {
  it("a specialist asks a colleague; the answer is used, never posted, counted as the colleague's; the thread stays", {
    timeout: 30_000,
  }, async () => {
    const { slack, stub } = await startApp();
    const root = await slack.say(GENERAL, `${MENTION} my invoice shows a sync error`);
    await waitFor("billing's answer", () => botTexts(GENERAL, root.ts).length === 1, 20_000);
    await app!.idle();
    expect(botTexts(GENERAL, root.ts)).toEqual([
      "Billing here. A sync error means the bank feed is stale: reconnect the bank.",
    ]);
    // The wrong consults got clear errors back.
    const billing = stub.requests.filter((request) => request.system.startsWith("You are billing"));
    const heard = resultsOf(billing.at(-1)!, "consult");
    expect(heard[0]).toContain(
      'There is no colleague named "nobody". You can consult: tech_support, scheduling.',
    );
    expect(heard[1]).toContain("You cannot consult yourself");
    // Depth 1 (the default): the consulted colleague is not offered consult.
    const consulted = stub.requests.filter((request) => request.system.includes("asks you one question"));
    expect(consulted.map((request) => request.system.split("\n")[0])).toEqual(["You are tech_support."]);
    expect(consulted[0]?.toolNames).not.toContain("consult");
    expect(consulted[0]?.toolNames).not.toContain("send_message");

    // The colleague's tokens are its own in the steps log and in usage.
    const key = `slack:${TEAM_ID}:${GENERAL}:${root.ts}`;
    const { run, steps } = await stepsOf(key);
    const models = steps.filter((step) => step.kind === "model_call");
    expect(models.map((step) => step.agent)).toEqual([
      "supervisor",
      "billing",
      "billing",
      "billing",
      "tech_support",
      "billing",
    ]);
    expect(run.agents).toContain("tech_support");
    const spent = await app!.observability.usage?.total("agent", "tech_support", [usageDay(Date.now())]);
    expect(spent?.inputTokens ?? 0).toBeGreaterThan(0);

    // Sticky routing is unchanged: billing answers the thread's next message.
    await slack.say(GENERAL, `${MENTION} thanks`, { threadTs: root.ts });
    await waitFor("the follow-up", () => botTexts(GENERAL, root.ts).length === 2);
    expect(botTexts(GENERAL, root.ts)[1]).toBe("You are welcome, billing here.");
  });

  it("goes one level deeper only when team.maxConsultDepth allows it", { timeout: 30_000 }, async () => {
    const { slack, stub } = await startApp({ maxConsultDepth: 2 });
    const root = await slack.say(GENERAL, `${MENTION} my invoice shows a sync error`);
    await waitFor("billing's answer", () => botTexts(GENERAL, root.ts).length === 1, 20_000);
    await app!.idle();
    expect(botTexts(GENERAL, root.ts)[0]).toContain("The next bank sync runs at 06:00.");
    const consulted = stub.requests.filter((request) => request.system.includes("asks you one question"));
    const tech = consulted.filter((request) => request.system.startsWith("You are tech_support"));
    const scheduling = consulted.filter((request) => request.system.startsWith("You are scheduling"));
    expect(tech[0]?.toolNames).toEqual(["consult"]);
    // The depth is used up at scheduling: it cannot consult further.
    expect(scheduling).toHaveLength(1);
    expect(scheduling[0]?.toolNames ?? []).not.toContain("consult");
  });
});
