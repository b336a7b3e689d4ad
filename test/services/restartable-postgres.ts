/**
 * A Postgres of one test's own, stopped and started again on the same port and data, for
 * checkpointer outages: the run's shared Postgres (postgres-service.ts) must stay up for every
 * other test.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findPostgresBin } from "./find-binary.ts";
import { clusterOwner, startPrivatePostgres } from "./postgres-service.ts";
import type { RunningService } from "./redis-service.ts";
import { startServerProcess } from "./server-process.ts";

export class RestartablePostgres {
  readonly url: string;
  readonly #dir: string;
  readonly #bin: string;
  #server: { stop(): Promise<void> } | undefined;

  private constructor(dir: string, bin: string, running: RunningService) {
    this.#dir = dir;
    this.#bin = bin;
    this.url = running.url;
    this.#server = running;
  }

  /** Undefined when Postgres's server programs are not installed. */
  static async start(): Promise<RestartablePostgres | undefined> {
    const bin = findPostgresBin();
    if (bin === undefined) return undefined;
    const dir = await mkdtemp(join(tmpdir(), "switchboard-outage-postgres-"));
    const running = await startPrivatePostgres(dir);
    if (!running) return undefined;
    return new RestartablePostgres(dir, bin, running);
  }

  /** Stops the server (a fast shutdown: open connections are closed). */
  async stop(): Promise<void> {
    await this.#server?.stop();
    this.#server = undefined;
  }

  /** Starts it again on the same port and data. */
  async resume(): Promise<void> {
    if (this.#server) return;
    const owner = await clusterOwner();
    const port = new URL(this.url).port;
    this.#server = await startServerProcess(
      join(this.#bin, "postgres"),
      [
        ...["-D", join(this.#dir, "data"), "-p", port, "-k", this.#dir],
        ...["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off"],
        ...["-c", "full_page_writes=off", "-c", "max_connections=200"],
      ],
      {
        readyLine: "database system is ready to accept connections",
        stopSignal: "SIGINT",
        spawn: { ...(owner ? { uid: owner.uid, gid: owner.gid } : {}), cwd: this.#dir },
      },
    );
  }

  async close(): Promise<void> {
    await this.stop();
    await rm(this.#dir, { recursive: true, force: true });
  }
}
