/**
 * Where the sweepers (request notices / time-outs / retention, idle memory archiving) run: on this
 * process's timers in role `all`; in a cluster, never on a process's timers but as one BullMQ
 * schedule per sweep, which the workers share.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@switchboard/core";
import { IdleSweeper, RequestSweeper } from "@switchboard/core/host";
import { Queue } from "bullmq";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../../../core/src/store/test-backends.ts";
import { loadConfig } from "../config/load-config.ts";
import { bullConnectionFor } from "../scale-out/bullmq-connection.ts";
import { type App, buildApp } from "./build-app.ts";

let apps: App[];
let dirs: string[];
let timers: { requests: ReturnType<typeof vi.spyOn>; memory: ReturnType<typeof vi.spyOn> };

beforeEach(() => {
  apps = [];
  dirs = [];
  timers = {
    requests: vi.spyOn(RequestSweeper.prototype, "start"),
    memory: vi.spyOn(IdleSweeper.prototype, "start"),
  };
});
afterEach(async () => {
  for (const app of apps) await app.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

async function startApp(yaml: string): Promise<App> {
  const cwd = await mkdtemp(join(tmpdir(), "switchboard-sweeps-"));
  dirs.push(cwd);
  await writeFile(join(cwd, "switchboard.yaml"), yaml);
  const app = await buildApp({
    loaded: await loadConfig({ cwd, env: {} }),
    logger: silentLogger,
    cwd,
    print: () => undefined,
    consoleUser: "ana",
  });
  apps.push(app);
  await app.start();
  return app;
}

describe("sweepers in one process", () => {
  it("run on the process's own timers", async () => {
    await startApp("requests:\n  sweepIntervalSeconds: 7\n");
    expect(timers.requests).toHaveBeenCalledExactlyOnceWith(7_000);
    expect(timers.memory).toHaveBeenCalledOnce();
  });
});

describeWithRedis("sweepers in a cluster", () => {
  let prefix: string;
  beforeEach(() => {
    prefix = uniqueRedisPrefix("sweeps-by-role");
  });
  afterEach(async () => {
    await removeRedisKeys(prefix);
  });

  const clusterYaml = (role: string) =>
    [
      `role: ${role}`,
      `store: "${TEST_REDIS_URL}/?prefix=${prefix}"`,
      "requests:\n  sweepIntervalSeconds: 7",
      "memory:\n  idleMinutes: 10",
    ].join("\n");

  const schedulesOf = async (sweep: string) => {
    const bull = bullConnectionFor(`${TEST_REDIS_URL}/?prefix=${prefix}`, "/");
    const queue = new Queue(`sweep-${sweep}`, { connection: bull.connection, prefix: bull.prefix });
    try {
      return (await queue.getJobSchedulers()).map((scheduler) => [scheduler.key, scheduler.every]);
    } finally {
      await queue.close();
    }
  };

  it("run in no worker's timers: each sweep is one schedule, at the interval its timer has in one process", async () => {
    await startApp(clusterYaml("worker"));
    await startApp(clusterYaml("worker"));
    expect(timers.requests).not.toHaveBeenCalled();
    expect(timers.memory).not.toHaveBeenCalled();
    expect(await schedulesOf("requests")).toEqual([["requests", 7_000]]);
    // A quarter of the idle time, at most a minute.
    expect(await schedulesOf("memory")).toEqual([["memory", 60_000]]);
    // Due schedules are fired once per cluster, every `schedules.pollSeconds`.
    expect(await schedulesOf("schedules")).toEqual([["schedules", 1_000]]);
  });

  it("run in no ingress at all", async () => {
    await startApp(clusterYaml("ingress"));
    expect(timers.requests).not.toHaveBeenCalled();
    expect(timers.memory).not.toHaveBeenCalled();
    expect(await schedulesOf("requests")).toEqual([]);
  });
});
