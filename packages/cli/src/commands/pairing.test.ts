import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, systemClock } from "@switchboard/core";
import { formatCode, Pairings } from "@switchboard/core/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testContext } from "../cli-test-context.ts";
import { runCli } from "../run-cli.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-pairing-"));
  await writeFile(join(dir, "switchboard.yaml"), "store: sqlite://./data/switchboard.db\n");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the running bot does when an unknown person writes: a code in the shared store. */
async function someoneAsks(userId: string): Promise<string> {
  const store = await openStore("sqlite://./data/switchboard.db", { cwd: dir });
  try {
    const pairings = new Pairings({ store, clock: systemClock, codeMinutes: 60, reminderMinutes: 10 });
    const { code } = await pairings.request({
      platform: "slack",
      userId,
      userName: "Ana",
      conversation: "slack:T1:D1",
    });
    return formatCode(code);
  } finally {
    await store.close();
  }
}

describe("switchboard pairing", () => {
  it("lists, approves and revokes on the configured store", async () => {
    const code = await someoneAsks("U0ANA");
    const list = testContext({ cwd: dir });
    expect(await runCli(["pairing", "list"], list.context)).toBe(0);
    expect(list.stdout.text).toContain(`${code}  Ana (slack U0ANA)  expires in 60 min`);

    const approve = testContext({ cwd: dir });
    expect(await runCli(["pairing", "approve", code.toLowerCase()], approve.context)).toBe(0);
    expect(approve.stdout.text).toBe("Approved: Ana (slack U0ANA) can talk to the bot now.\n");

    const again = testContext({ cwd: dir });
    expect(await runCli(["pairing", "approve", code], again.context)).toBe(1);
    expect(again.stderr.text).toContain(`no pairing code ${code} is waiting`);

    const listed = testContext({ cwd: dir });
    await runCli(["pairing"], listed.context);
    expect(listed.stdout.text).toContain("Waiting for approval (0):");
    expect(listed.stdout.text).toContain(
      "Approved (1):\n  Ana (slack U0ANA)  by switchboard pairing approve",
    );

    const revoke = testContext({ cwd: dir });
    expect(await runCli(["pairing", "revoke", "slack", "U0ANA"], revoke.context)).toBe(0);
    expect(revoke.stdout.text).toContain("Revoked: Ana (slack U0ANA)");
    const twice = testContext({ cwd: dir });
    expect(await runCli(["pairing", "revoke", "slack", "U0ANA"], twice.context)).toBe(1);
    expect(twice.stderr.text).toBe("switchboard: slack user U0ANA is not approved\n");
  });

  it("says how to use it when the arguments are wrong", async () => {
    const { context, stderr } = testContext({ cwd: dir });
    expect(await runCli(["pairing", "approve"], context)).toBe(2);
    expect(stderr.text).toContain("switchboard pairing approve <code>");
    const other = testContext({ cwd: dir });
    expect(await runCli(["usage", "extra"], other.context)).toBe(2);
  });
});
