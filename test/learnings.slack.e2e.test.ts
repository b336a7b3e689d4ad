/**
 * Learnings, /new and /reset, time frames and catching up, on Slack (the real adapter and Bolt
 * against the stand-in, the app as `switchboard start` builds it, memory on an SQLite store):
 * what an agent remembers about Alice reaches her prompts in other threads and never Bob's;
 * /learnings and /forget <id> act on the asker's own; /reset archives the session (found by
 * search afterwards, gone from the prompt); search_memory's time frame filters by session time;
 * /summary and "catch me up" answer from memory's notes.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { createMemoryLogger, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type App, buildApp } from "../packages/cli/src/app/build-app.ts";
import { loadConfig } from "../packages/cli/src/config/load-config.ts";
import { scriptedCatalogOf } from "./support/console/scripted-team.ts";
import { scriptedTeamModel, toolCall } from "./support/memory-harness.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import { ALICE, BOB, BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

const MENTION = `<@${BOT_USER_ID}>`;
/** Every model call's system prompt, in order. */
const prompts: string[] = [];
/** Everything every model call received (system prompt and history), in order. */
const calls: string[] = [];

/**
 * The supervisor: keeps what it is asked to remember, searches when asked (with a time frame after
 * "in"), catches up when asked, and otherwise says what it was asked. A tool's result is repeated
 * as the answer, so the test reads what the tool returned.
 */
function answer(messages: BaseMessage[]): AIMessage {
  prompts.push(String(messages[0]?.content ?? ""));
  calls.push(messages.map((message) => String(message.content)).join("\n"));
  const last = messages.at(-1);
  if (last && ToolMessage.isInstance(last)) return new AIMessage(`Tool said: ${String(last.content)}`);
  const question = String([...messages].reverse().find((m) => HumanMessage.isInstance(m))?.content ?? "");
  const remember = /remember that (.+)$/i.exec(question);
  if (remember) return toolCall("remember", { text: remember[1], scope: "user" });
  const search = /search (\w+)(?: in (.+))?$/i.exec(question);
  if (search)
    return toolCall("search_memory", { query: search[1], ...(search[2] ? { timeframe: search[2] } : {}) });
  if (/catch me up/i.test(question)) return toolCall("catch_up", {});
  return new AIMessage(`I answered: ${question.replace(MENTION, "").trim()}`);
}

let app: App | undefined;
let slack: FakeSlack | undefined;
let dir: string | undefined;
afterEach(async () => {
  await app?.close();
  await slack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  app = undefined;
  slack = undefined;
  prompts.length = 0;
  calls.length = 0;
});

async function startApp(): Promise<{ slack: FakeSlack; app: App }> {
  slack = await FakeSlack.start({ transport: "socket" });
  const config = slack.adapterConfig();
  if (!("appToken" in config)) throw new Error("the Slack stand-in is not in Socket Mode");
  dir = await mkdtemp(join(tmpdir(), "switchboard-learnings-"));
  await writeFile(
    join(dir, "switchboard.yaml"),
    [
      "store: sqlite://./data/switchboard.db",
      "memory:",
      "  flushEvery: 2",
      "team:",
      "  supervisor:",
      "    prompt: Answer the user.",
      "    tools: [search_memory]",
      "slack:",
      `  apiUrl: ${config.apiUrl}`,
      "",
    ].join("\n"),
  );
  const loaded = await loadConfig({
    cwd: dir,
    env: { SWITCHBOARD_SLACK_BOT_TOKEN: config.botToken, SWITCHBOARD_SLACK_APP_TOKEN: config.appToken },
  });
  const models = scriptedCatalogOf(scriptedTeamModel(answer));
  app = await buildApp({ loaded, logger, cwd: dir, print: () => {}, consoleUser: "ana", models });
  await app.start();
  return { slack, app };
}

const logger = createMemoryLogger();

/** Says `text` (a new thread, or in `threadTs`) and waits for the bot's next reply there. */
async function ask(
  fake: FakeSlack,
  text: string,
  options: { user?: string; threadTs?: string } = {},
): Promise<{ reply: string; root: string }> {
  const botReplies = (root: string) =>
    fake.state
      .thread(GENERAL, root)
      .filter((message) => message.user === BOT_USER_ID || message.bot_id)
      .map((message) => message.text);
  const before = options.threadTs ? botReplies(options.threadTs).length : 0;
  const said = await fake.say(GENERAL, options.threadTs ? text : `${MENTION} ${text}`, {
    user: options.user ?? ALICE,
    ...(options.threadTs ? { threadTs: options.threadTs } : {}),
  });
  const root = options.threadTs ?? said.ts;
  await waitFor(`the answer to ${JSON.stringify(text)}`, () => botReplies(root).length > before);
  await app?.idle();
  return { reply: botReplies(root).at(-1) ?? "", root };
}

describe("learnings on Slack", () => {
  it("follow Alice to her other threads, never reach Bob, and go with /forget <id>", async () => {
    const { slack } = await startApp();
    const kept = await ask(slack, "remember that Prefers invoices in EUR");
    expect(kept.reply).toContain("Tool said: Kept as [");
    const id = /Kept as \[(\w+)\]/.exec(kept.reply)?.[1] ?? "";

    await ask(slack, "which currency for my invoice?");
    expect(prompts.at(-1)).toContain(`- [${id}] Prefers invoices in EUR`);
    await ask(slack, "which currency for my invoice?", { user: BOB });
    expect(prompts.at(-1)).not.toContain("EUR");

    expect((await ask(slack, "learnings")).reply).toContain(`${id}\` Prefers invoices in EUR`);
    expect((await ask(slack, "learnings", { user: BOB })).reply).toContain("I keep no learnings");
    expect((await ask(slack, `forget ${id}`, { user: BOB })).reply).toContain(`You have no learning [${id}]`);
    expect((await ask(slack, `forget ${id}`)).reply).toBe(`Forgotten: [${id}] Prefers invoices in EUR`);

    await ask(slack, "which currency now?");
    expect(prompts.at(-1)).not.toContain("EUR");
    expect(logger.lines.filter((line) => line.level === "error")).toEqual([]);
  });
});

describe("/reset, time frames and catching up on Slack", () => {
  it("/reset archives the session (found by search, by time frame, gone from prompts); /summary and catch me up read memory", async () => {
    const { slack } = await startApp();
    const { root } = await ask(slack, "the kiwi budget for the offsite is 40k");
    await ask(slack, "and the venue is the old mill", { threadTs: root });
    await ask(slack, "noted?", { threadTs: root });
    expect(calls.at(-1)).toContain("kiwi budget");

    const summary = await ask(slack, `${MENTION} summary`, { threadTs: root });
    expect(summary.reply).toContain("This thread so far");
    expect(summary.reply).toContain("asked: ");
    expect(summary.reply).toContain("kiwi budget");

    const reset = await ask(slack, `${MENTION} reset`, { threadTs: root });
    expect(reset.reply).toContain("Fresh start");
    expect(reset.reply).toMatch(
      /What was said so far is archived \(\d+ messages\) and no longer in my prompts here/,
    );
    expect(reset.reply).toContain("Learnings are kept.");

    await ask(slack, "what was the budget?", { threadTs: root });
    // Neither the history nor memory's context brings the earlier session back.
    expect(calls.at(-1)).not.toContain("kiwi");
    expect(prompts.at(-1)).toContain("This conversation was reset on");

    const found = await ask(slack, "search kiwi", { threadTs: root });
    expect(found.reply).toContain('Earlier sessions matching "kiwi"');
    expect(found.reply).toContain("this conversation");
    const recent = await ask(slack, "search kiwi in last 2 days", { threadTs: root });
    expect(recent.reply).toContain('Earlier sessions matching "kiwi" in');
    const lastMonth = await ask(slack, "search kiwi in last month", { threadTs: root });
    expect(lastMonth.reply).toMatch(/No earlier sessions mention "kiwi" in \d{4}-\d{2}-01 – /);
    const nonsense = await ask(slack, "search kiwi in someday", { threadTs: root });
    expect(nonsense.reply).toContain("Not searched: unknown time frame");

    // The archived session's summary is part of the thread's catch-up, and the supervisor reads it.
    const caughtUp = await ask(slack, "catch me up", { threadTs: root });
    expect(caughtUp.reply).toMatch(/^Tool said: \*This thread so far\*/);
    expect(caughtUp.reply).toContain("kiwi budget");

    // Bob, at the channel's top level: the threads since his last message there.
    await ask(slack, "hello from bob", { user: BOB });
    const { root: other } = await ask(slack, "the ferry leaves at noon");
    const channel = await ask(slack, "summary", { user: BOB });
    expect(channel.reply).toContain("Threads here since your last message");
    expect(channel.reply).toContain("ferry leaves at noon");
    expect(channel.reply).not.toContain("kiwi");
    expect(other).not.toBe(root);
    expect(logger.lines.filter((line) => line.level === "error")).toEqual([]);
  });

  it("/new archives the session and keeps what memory knows in the prompt", async () => {
    const { slack } = await startApp();
    const { root } = await ask(slack, "the mango order is 12 crates");
    await ask(slack, "thanks", { threadTs: root });
    const fresh = await ask(slack, `${MENTION} new`, { threadTs: root });
    expect(fresh.reply).toContain("New start");
    expect(fresh.reply).toContain("its summary stays in what I remember here");
    await ask(slack, "how many crates?", { threadTs: root });
    expect(prompts.at(-1)).toContain("mango order");
    expect(prompts.at(-1)).toContain("Earlier sessions");
  });
});
