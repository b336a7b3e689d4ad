/**
 * What the configured role changes in the wiring of one process. Role `all` changes nothing and
 * loads nothing; the ingress and worker roles load the BullMQ scale-out (../scale-out/).
 */

import type { Logger } from "@switchboard/core";
import type { Adapter } from "@switchboard/core/adapter";
import type { Role, SwitchboardConfig } from "../config/schema.ts";
import type { ScaleOut } from "../scale-out/index.ts";

export async function openScaleOutFor(
  config: SwitchboardConfig,
  deps: { cwd: string; logger: Logger },
): Promise<ScaleOut | undefined> {
  const { role } = config;
  if (role === "all") return undefined;
  const { openScaleOut } = await import("../scale-out/index.ts");
  return openScaleOut({
    role,
    storeUrl: config.store,
    cwd: deps.cwd,
    logger: deps.logger,
    concurrency: config.scaleOut.concurrency,
    jobLockMs: config.scaleOut.jobLockSeconds * 1000,
    lockTtlMs: config.engine.lockTtlSeconds * 1000,
    sweepEveryMs: config.scaleOut.sweepSeconds * 1000,
    leaderLeaseMs: config.scaleOut.leaderLeaseSeconds * 1000,
    taskConcurrency: config.tasks.maxConcurrent,
  });
}

/**
 * The platform adapters as this role runs them: workers deliver through the platforms' HTTP APIs
 * only (each adapter's send-only form); an ingress receives on a singleton connection (Matrix sync,
 * Discord gateway) only while it leads it.
 */
export async function platformAdaptersForRole(
  config: SwitchboardConfig,
  adapters: readonly Adapter[],
  scaleOut: ScaleOut | undefined,
): Promise<Adapter[]> {
  if (config.role === "ingress" && scaleOut) return adapters.map((adapter) => scaleOut.receiving(adapter));
  if (config.role !== "worker") return [...adapters];
  const { sendOnly } = await import("../scale-out/index.ts");
  return adapters.map((adapter) => sendOnly(adapter));
}

/** The first line an operator reads once the process runs. */
export function runningLine(role: Role, platforms: readonly string[]): string {
  const where = platforms.join(", ");
  switch (role) {
    case "all":
      return `running on ${where}; Ctrl-C stops`;
    case "ingress":
      return `running on ${where} as ingress (turns run in the workers); Ctrl-C stops`;
    case "worker":
      return `running as worker, answering on ${where} (send-only); Ctrl-C stops`;
  }
}
