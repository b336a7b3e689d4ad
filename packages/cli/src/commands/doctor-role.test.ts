/** `switchboard doctor` for the cluster roles: the work queue, leaders, what a worker cannot deliver. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../../../core/src/store/test-backends.ts";
import { testContext } from "../cli-test-context.ts";
import { runCli } from "../run-cli.ts";
import { LeaderLease } from "../scale-out/leader-lease.ts";
import { closeLeaseConnection, openLeaseConnection } from "../scale-out/lease-connection.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-doctor-role-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function linesOf(text: string): string[] {
  return text.trimEnd().split("\n");
}

describeWithRedis("switchboard doctor --role", () => {
  const prefix = uniqueRedisPrefix("doctor-role");
  afterEach(async () => {
    await removeRedisKeys(prefix);
  });

  it("reaches the work queue on the store's Redis for an ingress, and says no worker is connected", async () => {
    const { context, stdout } = testContext({
      cwd: dir,
      env: { SWITCHBOARD_STORE_URL: `${TEST_REDIS_URL}/?prefix=${prefix}` },
    });
    expect(await runCli(["doctor", "--role", "ingress"], context)).toBe(0);
    expect(stdout.text).toMatch(
      /^ok +role: ingress; BullMQ reachable on .* 0 waiting, 0 active, 0 delayed, 0 failed drain jobs; 0 worker connection\(s\) — none yet/m,
    );
  });

  it("names the ingress that leads the Discord gateway, or says none does", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "discord:\n  apiUrl: http://127.0.0.1:1/api\n");
    const env = {
      SWITCHBOARD_STORE_URL: `${TEST_REDIS_URL}/?prefix=${prefix}`,
      SWITCHBOARD_DISCORD_TOKEN: "x",
    };
    const first = testContext({ cwd: dir, env });
    await runCli(["doctor", "--role", "ingress"], first.context);
    expect(first.stdout.text).toContain(
      "ok       role: discord receiving has no leader now: the first ingress to start takes it",
    );
    const redis = openLeaseConnection(TEST_REDIS_URL, {
      name: "doctor-test",
      commandTimeoutMs: 1_000,
      onError: () => undefined,
    });
    try {
      await new LeaderLease(redis, `${prefix}leader:discord`, "ingress-a:41").acquire(60_000);
    } finally {
      closeLeaseConnection(redis);
    }
    const second = testContext({ cwd: dir, env });
    await runCli(["doctor", "--role", "ingress"], second.context);
    expect(second.stdout.text).toContain(
      "ok       role: discord receiving is led by ingress-a:41 (fence 1); other ingresses stand by",
    );
  });

  it("warns that the interrupt policy acts as queue in a cluster", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "engine:\n  midRunPolicy: interrupt\n");
    const { context, stdout } = testContext({
      cwd: dir,
      env: { SWITCHBOARD_STORE_URL: `${TEST_REDIS_URL}/?prefix=${prefix}` },
    });
    expect(await runCli(["doctor", "--role", "worker"], context)).toBe(0);
    expect(stdout.text).toContain(
      "warning  role: worker: engine.midRunPolicy interrupt acts as queue in a cluster (the ingress receives the newer message, a worker runs the answer it would stop)",
    );
  });

  it("tells a worker's operator what a platform does differently from a worker, and warns of nothing that works", async () => {
    await writeFile(
      join(dir, "switchboard.yaml"),
      "discord:\n  apiUrl: http://127.0.0.1:1/api\nmatrix:\n  homeserverUrl: http://127.0.0.1:1\n  encryption: true\n",
    );
    const { context, stdout } = testContext({
      cwd: dir,
      env: {
        SWITCHBOARD_STORE_URL: `${TEST_REDIS_URL}/?prefix=${prefix}`,
        SWITCHBOARD_DISCORD_TOKEN: "x",
        SWITCHBOARD_MATRIX_ACCESS_TOKEN: "x",
      },
    });
    await runCli(["doctor", "--role", "worker"], context);
    const lines = linesOf(stdout.text);
    // Slash-command answers reach their users from a worker (through the shared store): nothing to warn about.
    expect(lines.filter((line) => line.includes("role: worker: discord"))).toEqual([]);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^warning +role: worker: matrix: events for encrypted rooms are encrypted by the ingress that leads Matrix receiving/,
      ),
    );
    expect(lines.filter((line) => /^problem +role: worker/.test(line))).toEqual([]);
    expect(stdout.text).not.toContain("cannot send without its inbound connection");
  });
});

describe("switchboard doctor, role all", () => {
  it("never loads BullMQ", async () => {
    const { context, stdout } = testContext({ cwd: dir });
    await runCli(["doctor"], context);
    expect(stdout.text).toContain("ok       role: all (one process does everything; BullMQ is not used)");
  });

  it("reports a worker whose Redis does not answer", { timeout: 20_000 }, async () => {
    const { context, stdout } = testContext({
      cwd: dir,
      env: { SWITCHBOARD_STORE_URL: "redis://127.0.0.1:1" },
    });
    expect(await runCli(["doctor", "--role", "worker"], context)).toBe(1);
    expect(stdout.text).toMatch(
      /^problem +role: worker: BullMQ cannot reach the work queue on 127\.0\.0\.1:1/m,
    );
  });
});
