/**
 * Handing a thread to a person, on Slack (the real adapter and Bolt against the stand-in, the app as
 * `switchboard start` builds it): the agent hands over, the people's channel is told once, the bot
 * records but does not answer what is said meanwhile, `@bot bot` hands back, and the agent then
 * knows what the person said.
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
import { scriptedTeamModel } from "./support/memory-harness.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import { BOB, BOT_USER_ID, GENERAL, TEAM_ID } from "./support/slack/workspace-state.ts";

const MENTION = `<@${BOT_USER_ID}>`;
const seen: string[][] = [];

/** The supervisor hands over when someone asks for a person, and otherwise says what it knows. */
function answer(messages: BaseMessage[]): AIMessage {
  seen.push(messages.map((message) => String(message.content)));
  const last = messages.at(-1);
  if (last && ToolMessage.isInstance(last) && last.name === "hand_to_human")
    return new AIMessage("A colleague will answer you here.");
  const question = String([...messages].reverse().find((m) => HumanMessage.isInstance(m))?.content ?? "");
  if (/a person/i.test(question))
    return new AIMessage({
      content: "",
      tool_calls: [
        {
          id: `h-${seen.length}`,
          name: "hand_to_human",
          args: { reason: "wants a person" },
          type: "tool_call",
        },
      ],
    });
  return new AIMessage(`I answered: ${question}`);
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
  seen.length = 0;
});

describe("a person takes a Slack thread over", () => {
  it("hands over, tells the people's channel once, stays silent, and hands back with what was said", async () => {
    slack = await FakeSlack.start({ transport: "socket" });
    const config = slack.adapterConfig();
    if (!("appToken" in config)) throw new Error("the Slack stand-in is not in Socket Mode");
    dir = await mkdtemp(join(tmpdir(), "switchboard-humans-"));
    await writeFile(
      join(dir, "switchboard.yaml"),
      [
        "store: sqlite://./data/switchboard.db",
        "memory:",
        "  enabled: false",
        "team:",
        "  humans:",
        // The people's channel is #general's top level (the bot must be a member where it posts).
        `    notify: slack:${TEAM_ID}:${GENERAL}`,
        "    mention: '@support'",
        "slack:",
        `  apiUrl: ${config.apiUrl}`,
        "",
      ].join("\n"),
    );
    const loaded = await loadConfig({
      cwd: dir,
      env: { SWITCHBOARD_SLACK_BOT_TOKEN: config.botToken, SWITCHBOARD_SLACK_APP_TOKEN: config.appToken },
    });
    const model = scriptedTeamModel(answer);
    const models = scriptedCatalogOf(model);
    const logger = createMemoryLogger();
    app = await buildApp({ loaded, logger, cwd: dir, print: () => {}, consoleUser: "ana", models });
    await app.start();
    const texts = (channel: string, thread: string) =>
      slack!.state
        .thread(channel, thread)
        .filter((message) => message.user === BOT_USER_ID || message.bot_id)
        .map((message) => message.text);
    const notices = () =>
      slack!.state
        .botMessages()
        .filter((message) => message.channel === GENERAL && message.thread_ts === undefined)
        .map((message) => message.text);

    const root = await slack.say(GENERAL, `${MENTION} I need a person please`);
    await waitFor("the handover answer", () =>
      texts(GENERAL, root.ts).includes("A colleague will answer you here."),
    );
    await waitFor("the notice in the people's channel", () => notices().length === 1);
    expect(notices()[0]).toContain("@support A thread wants a person: wants a person (asked by supervisor).");
    expect(notices()[0]).toContain(`slack:${TEAM_ID}:${GENERAL}:${root.ts}`);

    // While the person has the thread, nothing is answered — but everything is recorded.
    const calls = seen.length;
    await slack.say(GENERAL, "are you there?", { threadTs: root.ts });
    await slack.say(GENERAL, "Hi, I am Bob from support: your refund is approved", {
      threadTs: root.ts,
      user: BOB,
    });
    await app.idle();
    expect(seen.length).toBe(calls);
    expect(texts(GENERAL, root.ts)).toEqual(["A colleague will answer you here."]);

    await slack.say(GENERAL, `${MENTION} bot`, { threadTs: root.ts });
    await waitFor("the handback", () => texts(GENERAL, root.ts).length === 2);
    expect(texts(GENERAL, root.ts)[1]).toBe("Back to the bot: supervisor answers here again.");

    await slack.say(GENERAL, `${MENTION} what did support say?`, { threadTs: root.ts });
    await waitFor("the bot's answer", () => texts(GENERAL, root.ts).length === 3);
    expect(seen.at(-1)?.join("\n")).toContain("your refund is approved");
    expect(notices()).toHaveLength(1);
    expect(logger.lines.filter((line) => line.level === "error")).toEqual([]);
  });
});
