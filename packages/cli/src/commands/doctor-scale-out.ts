import type { Logger } from "@switchboard/core";
import { createPlatformAdapters } from "../app/platform-adapters.ts";
import type { LoadedConfig } from "../config/load-config.ts";
import type { BullConnection } from "../scale-out/bullmq-connection.ts";
import type { CheckResult } from "./doctor-result.ts";

const REACH_TIMEOUT_MS = 5_000;

/**
 * The process's role; for ingress and worker, that BullMQ reaches the work queue on the store's
 * Redis (and how many workers are connected), and that a worker can send on every platform (and
 * what each cannot send from a worker).
 * Role `all` loads nothing here.
 */
export async function checkScaleOut(
  loaded: LoadedConfig,
  cwd: string,
  logger: Logger,
): Promise<CheckResult[]> {
  const { config } = loaded;
  if (config.role === "all")
    return [{ name: "role", status: "ok", detail: "all (one process does everything; BullMQ is not used)" }];
  const results: CheckResult[] = [];
  const { bullConnectionFor, DrainQueue } = await import("../scale-out/index.ts");
  const bull = bullConnectionFor(config.store, cwd);
  // Connection errors end in the timeout below, which the report explains.
  const queue = new DrainQueue(bull, () => undefined);
  try {
    const timeout = new Promise<never>((_resolve, reject) =>
      setTimeout(
        () => reject(new Error(`no answer within ${REACH_TIMEOUT_MS / 1000} s`)),
        REACH_TIMEOUT_MS,
      ).unref(),
    );
    const [counts, workers] = await Promise.race([
      Promise.all([queue.counts(), queue.workerCount()]),
      timeout,
    ]);
    const nobody = workers === 0 ? " — none yet: messages wait queued until a worker starts" : "";
    results.push({
      name: "role",
      status: "ok",
      detail: `${config.role}; BullMQ reachable on ${bull.host} (prefix ${bull.prefix}): ${counts.waiting} waiting, ${counts.active} active, ${counts.delayed} delayed, ${counts.failed} failed drain jobs; ${workers} worker connection(s)${nobody}`,
    });
  } catch (error) {
    results.push({
      name: "role",
      status: "problem",
      detail: `${config.role}: BullMQ cannot reach the work queue on ${bull.host}: ${(error as Error).message}`,
      fix: "start Redis or correct store: — the ingress and the workers share it",
    });
  } finally {
    await queue.close().catch(() => undefined);
  }
  if (config.role === "ingress") results.push(...(await leaders(config, bull, logger)));
  if (config.engine.midRunPolicy === "interrupt")
    results.push({
      name: "role",
      status: "warning",
      detail: `${config.role}: engine.midRunPolicy interrupt acts as queue in a cluster (the ingress receives the newer message, a worker runs the answer it would stop)`,
      fix: "set engine.midRunPolicy to queue or collect, or run role all",
    });
  if (config.role === "worker") results.push(...(await checkSendOnly(config, logger)));
  return results;
}

/** Every enabled platform can deliver without its inbound connection, and what it cannot deliver so. */
async function checkSendOnly(config: LoadedConfig["config"], logger: Logger): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  // A worker always reaches the cluster's leaders (BullMQ); the doctor only reads what that allows.
  const adapters = await createPlatformAdapters(config, {
    logger,
    callLeader: () => Promise.reject(new Error("switchboard doctor does not call the leader")),
  });
  const unable = adapters.filter(({ adapter }) => !adapter.startSendOnly).map(({ platform }) => platform);
  if (unable.length > 0)
    results.push({
      name: "role",
      status: "problem",
      detail: `worker: ${unable.join(", ")} cannot send without its inbound connection yet`,
      fix: "run Switchboard with role all while these platforms are enabled",
    });
  for (const { platform, adapter } of adapters) {
    const check = adapter.startSendOnly ? adapter.checkSendOnly?.() : undefined;
    for (const problem of check?.problems ?? [])
      results.push({ name: "role", status: "problem", detail: `worker: ${platform}: ${problem}` });
    for (const warning of check?.warnings ?? [])
      results.push({
        name: "role",
        status: "warning",
        detail: `worker: ${platform}: ${warning}`,
        fix: "run Switchboard with role all where this matters",
      });
  }
  return results;
}

/** Ingress: who leads each singleton inbound connection now (Matrix sync, Discord gateway). */
async function leaders(
  config: LoadedConfig["config"],
  bull: BullConnection,
  logger: Logger,
): Promise<CheckResult[]> {
  const adapters = (await createPlatformAdapters(config, { logger })).filter(
    ({ adapter }) => adapter.exclusiveInbound,
  );
  if (adapters.length === 0) return [];
  const [{ LeaderLease }, { openLeaseConnection, closeLeaseConnection }] = await Promise.all([
    import("../scale-out/leader-lease.ts"),
    import("../scale-out/lease-connection.ts"),
  ]);
  // Trouble shows as the failed read below; a doctor does not wait out a Redis that is away.
  const redis = openLeaseConnection(bull.url, {
    name: "switchboard-doctor",
    commandTimeoutMs: 3_000,
    onError: () => undefined,
  });
  try {
    const results: CheckResult[] = [];
    for (const { platform } of adapters) {
      const held = await new LeaderLease(redis, `${bull.keyPrefix}leader:${platform}`, "doctor").holder();
      results.push({
        name: "role",
        status: "ok",
        detail: held
          ? `${platform} receiving is led by ${held.holder} (fence ${held.fence}); other ingresses stand by`
          : `${platform} receiving has no leader now: the first ingress to start takes it`,
      });
    }
    return results;
  } catch (error) {
    return [
      {
        name: "role",
        status: "problem",
        detail: `cannot read the leader leases: ${(error as Error).message}`,
      },
    ];
  } finally {
    closeLeaseConnection(redis);
  }
}
