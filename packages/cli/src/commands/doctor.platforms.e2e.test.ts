/**
 * `switchboard doctor` against the Matrix stand-in: it keeps no trail on the account (the login
 * start keeps in the store is reused, so no device is left behind per run) and warns about
 * end-to-end encryption that is switched on but cannot work in this installation.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeHomeserver } from "../../../../test/support/matrix/fake-homeserver.ts";
import { testContext } from "../cli-test-context.ts";
import { runCli } from "../run-cli.ts";

let dir: string;
let homeserver: FakeHomeserver;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-doctor-matrix-"));
  homeserver = await FakeHomeserver.start();
});
afterEach(async () => {
  await homeserver.close();
  await rm(dir, { recursive: true, force: true });
});

async function writeMatrixConfig(extra: string[] = []): Promise<string> {
  const userId = homeserver.registerUser("bot", { password: "correct horse" });
  const lines = [
    "team:",
    "  supervisor:",
    "    prompt: You help.",
    "matrix:",
    `  homeserverUrl: ${homeserver.url}`,
    `  userId: "${userId}"`,
    '  password: "correct horse"',
    ...extra.map((line) => `  ${line}`),
  ];
  await writeFile(join(dir, "switchboard.yaml"), `${lines.join("\n")}\n`);
  return userId;
}

describe("switchboard doctor on Matrix", () => {
  it("logs in with the password once and reuses the kept login on every later run", async () => {
    const userId = await writeMatrixConfig();
    for (let run = 0; run < 3; run++) {
      const { context, stdout } = testContext({ cwd: dir });
      expect(await runCli(["doctor"], context)).toBe(0);
      expect(stdout.text).toContain("ok       matrix: Matrix credentials accepted");
    }
    expect(homeserver.logins).toEqual([userId]);
  });

  it("with encryption: true, warns when the homeserver cannot say what it holds for the bot's device, without failing", async () => {
    await writeMatrixConfig(["encryption: true"]);
    const { context, stdout } = testContext({ cwd: dir });
    expect(await runCli(["doctor"], context)).toBe(0);
    expect(stdout.text).toMatch(
      /^warning +matrix: could not read the end-to-end encryption state of device BOTDEVICE \(M_UNRECOGNIZED: .*\) — fix: see packages\/matrix\/README\.md$/m,
    );
    expect(stdout.text.trimEnd().split("\n").at(-1)).toBe("all checks passed (1 warning)");
  });
});
