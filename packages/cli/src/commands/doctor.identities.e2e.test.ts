/**
 * `switchboard doctor` against the Slack stand-in: agents with a `display` need the
 * chat:write.customize scope to post under their own names, and doctor says so when the token
 * lacks it (and only then).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SIGNING_SECRET } from "../../../../test/support/slack/event-payloads.ts";
import { FakeSlack } from "../../../../test/support/slack/fake-slack.ts";
import { BOT_TOKEN } from "../../../../test/support/slack/web-api-stand-in.ts";
import { ALL_SCOPES, CUSTOMIZE_SCOPE } from "../../../../test/support/slack/workspace-state.ts";
import { testContext } from "../cli-test-context.ts";
import { runCli } from "../run-cli.ts";

let dir: string;
let slack: FakeSlack | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-doctor-identities-"));
});
afterEach(async () => {
  await slack?.close();
  await rm(dir, { recursive: true, force: true });
});

async function doctor(scopes: readonly string[], display: boolean): Promise<string> {
  slack = await FakeSlack.start({ transport: "http", scopes });
  const lines = [
    "team:",
    "  supervisor:",
    "    prompt: You help.",
    ...(display ? ["    display: { name: Front desk, icon: ':wave:' }"] : []),
    "slack:",
    `  botToken: ${BOT_TOKEN}`,
    `  signingSecret: ${SIGNING_SECRET}`,
    `  apiUrl: ${slack.api.apiUrl}`,
  ];
  await writeFile(join(dir, "switchboard.yaml"), `${lines.join("\n")}\n`);
  const { context, stdout } = testContext({ cwd: dir });
  expect(await runCli(["doctor"], context)).toBe(0);
  return stdout.text;
}

describe("switchboard doctor on Slack with agent identities", () => {
  it("warns that agents cannot post under their names without chat:write.customize", async () => {
    const report = await doctor(ALL_SCOPES, true);
    expect(report).toMatch(
      /^warning +slack: agents cannot post under their own names and icons: add the chat:write\.customize scope/m,
    );
  });

  it("says nothing of the scope when it is granted, or when no agent has a display", async () => {
    expect(await doctor([...ALL_SCOPES, CUSTOMIZE_SCOPE], true)).not.toContain("chat:write.customize");
    await slack?.close();
    slack = undefined;
    expect(await doctor(ALL_SCOPES, false)).not.toContain("chat:write.customize");
  });
});
