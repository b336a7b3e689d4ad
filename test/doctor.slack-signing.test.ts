/**
 * `switchboard doctor --slack-verify` in HTTP mode: it listens where the adapter would and checks
 * the signing secret against the url_verification Slack sends when someone presses Retry next to
 * the Request URL (the stand-in sends it as Slack does). Without the flag the line says plainly that
 * the secret was not checked.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testContext } from "../packages/cli/src/cli-test-context.ts";
import { runCli } from "../packages/cli/src/run-cli.ts";
import { freePort } from "./services/free-port.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import { BOT_TOKEN } from "./support/slack/web-api-stand-in.ts";

const APP_SECRET = "45c48cce2e2d7fbdea1afc51c7c6ad26";

let dir: string;
let slack: FakeSlack;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-doctor-signing-"));
  slack = await FakeSlack.start({ transport: "http", signingSecret: APP_SECRET });
});
afterEach(async () => {
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

/** doctor on an HTTP-mode config with `secret`; while `verify`, Slack's request goes out once doctor listens. */
async function doctor(secret: string, verify: boolean) {
  const port = await freePort();
  const config = [
    "slack:",
    "  mode: http",
    `  port: ${port}`,
    "  host: 127.0.0.1",
    `  apiUrl: ${slack.api.apiUrl}`,
  ];
  await writeFile(join(dir, "switchboard.yaml"), `${config.join("\n")}\n`);
  const run = testContext({
    cwd: dir,
    env: { SWITCHBOARD_SLACK_BOT_TOKEN: BOT_TOKEN, SWITCHBOARD_SLACK_SIGNING_SECRET: secret },
  });
  const exit = runCli(["doctor", "--offline", ...(verify ? ["--slack-verify"] : [])], run.context);
  const check = verify
    ? await waitFor(
        "doctor to listen for Slack's request",
        () => slack.verifyRequestUrl(`http://127.0.0.1:${port}/slack/events`).catch(() => undefined),
        20_000,
      )
    : undefined;
  return { code: await exit, report: run.stdout.text, check };
}

describe("switchboard doctor and the Slack signing secret", () => {
  it("--slack-verify: the right secret answers Slack's challenge; a wrong one is a problem", async () => {
    const right = await doctor(APP_SECRET, true);
    expect(right.check).toEqual({ verified: true, status: 200 });
    expect(right.report).toMatch(/^ok +slack signing secret: the signing secret matches/m);
    expect(right.code).toBe(0);

    const wrong = await doctor("0cc175b9c0f1b6a831c399e269772661", true);
    expect(wrong.check).toEqual({ verified: false, status: 401 });
    expect(wrong.report).toMatch(
      /^problem +slack signing secret: the request Slack sent is not signed with this secret — fix: copy Basic Information → App Credentials → Signing Secret again/m,
    );
    expect(wrong.code).toBe(1);
  }, 60_000);

  it("without --slack-verify says the secret was not checked", async () => {
    const { report } = await doctor(APP_SECRET, false);
    expect(report).toMatch(/^skipped +slack signing secret: not checked: .*--slack-verify/m);
  }, 30_000);
});
