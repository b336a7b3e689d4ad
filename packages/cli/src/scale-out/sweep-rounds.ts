import type { Memory, RequestTracking, RetryLater, Schedules, Tasks } from "@switchboard/core";
import type { BlobRetention, HumanHandoffs } from "@switchboard/core/host";
import type { ClusterSweep } from "./cluster-sweeps.ts";
import type { DrainTarget } from "./drain-worker.ts";

/** The sweepers that run on a timer in one process (role `all`) and once per cluster in a cluster. */
export interface ProcessSweepers {
  /** Notices, time-outs and retention of closed requests. */
  readonly tracking: Pick<RequestTracking, "sweeper" | "sweepIntervalMs">;
  /** Archiving idle sessions. */
  readonly memory: Pick<Memory, "sweep" | "sweepIntervalMs">;
  /** Background tasks: due ones announced, stuck ones failed, long pauses expired, endings queued. */
  readonly tasks: Pick<Tasks, "healthRound" | "healthIntervalMs">;
  /** Schedules: due fires queued into their threads (each once: the continuation's id), retention. */
  readonly schedules: Pick<Schedules, "fireRound" | "pollMs">;
  /** Threads a person had for too long, handed back to the bot. */
  readonly humans: Pick<HumanHandoffs, "sweep" | "sweepIntervalMs">;
  /** Later retries of turns the model could not answer: due tries queued into their threads (each once). */
  readonly retryLater?: Pick<RetryLater, "fireRound" | "pollMs">;
  /** Files past `attachments.retainDays` (absent when attachments are off). */
  readonly files?: Pick<BlobRetention, "sweep" | "intervalMs">;
}

/** Every cluster sweep, each at the interval its timer has in one process. */
export function clusterSweepsOf(
  engine: DrainTarget,
  sweepers: ProcessSweepers,
  recoveryEveryMs: number,
): ClusterSweep[] {
  return [
    {
      // Announces queued work nobody announced (an ingress died between intake and announcing, a
      // drain gave up) and reports queue ages.
      name: "recovery",
      everyMs: recoveryEveryMs,
      round: async () => {
        const report = await engine.runRecoveryRound();
        return { queued: report.queuedConversations, picked: report.picked };
      },
    },
    {
      name: "requests",
      everyMs: sweepers.tracking.sweepIntervalMs,
      round: async () => ({ ...(await sweepers.tracking.sweeper.sweep()) }),
    },
    {
      name: "tasks",
      everyMs: sweepers.tasks.healthIntervalMs,
      round: async () => ({ ...(await sweepers.tasks.healthRound()) }),
    },
    {
      name: "humans",
      everyMs: sweepers.humans.sweepIntervalMs,
      round: async () => ({ released: await sweepers.humans.sweep() }),
    },
    {
      // Once per cluster (the sweep queue's global concurrency of 1), every `schedules.pollSeconds`;
      // a fire queued twice anyway (a round re-run after its worker died) is dropped by its id.
      name: "schedules",
      everyMs: sweepers.schedules.pollMs,
      round: async () => ({ ...(await sweepers.schedules.fireRound()) }),
    },
    {
      name: "memory",
      everyMs: sweepers.memory.sweepIntervalMs,
      round: async () => ({ archived: (await sweepers.memory.sweep()).length }),
    },
    ...(sweepers.retryLater ? [retryLaterSweep(sweepers.retryLater)] : []),
    ...(sweepers.files ? [filesSweep(sweepers.files)] : []),
  ];
}

/** Like schedules: a try queued twice (a round re-run after its worker died) is dropped by its id. */
function retryLaterSweep(retryLater: NonNullable<ProcessSweepers["retryLater"]>): ClusterSweep {
  return {
    name: "retry-later",
    everyMs: retryLater.pollMs,
    round: async () => ({ ...(await retryLater.fireRound()) }),
  };
}

function filesSweep(files: NonNullable<ProcessSweepers["files"]>): ClusterSweep {
  return { name: "files", everyMs: files.intervalMs, round: async () => ({ deleted: await files.sweep() }) };
}
