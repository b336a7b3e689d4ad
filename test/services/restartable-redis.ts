/**
 * A Redis of one test's own, stopped and started again on the same port, for store outages: the
 * run's shared Redis (redis-service.ts) must stay up for every other test. `keepsData`: the data
 * survives a restart (an append-only file, fsync'd on every write); without it a restart comes
 * back empty, as a Redis without persistence does.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findOnPath } from "./find-binary.ts";
import { freePort } from "./free-port.ts";
import { type ServerProcess, startServerProcess } from "./server-process.ts";

export class RestartableRedis {
  readonly url: string;
  readonly #binary: string;
  readonly #port: number;
  readonly #dir: string;
  readonly #keepsData: boolean;
  #server: ServerProcess | undefined;

  private constructor(binary: string, port: number, dir: string, keepsData: boolean) {
    this.#binary = binary;
    this.#port = port;
    this.#dir = dir;
    this.#keepsData = keepsData;
    this.url = `redis://127.0.0.1:${port}`;
  }

  /** Undefined when `redis-server` is not installed. */
  static async start(options: { keepsData: boolean }): Promise<RestartableRedis | undefined> {
    const binary = findOnPath("redis-server");
    if (binary === undefined) return undefined;
    const dir = await mkdtemp(join(tmpdir(), "switchboard-outage-redis-"));
    const redis = new RestartableRedis(binary, await freePort(), dir, options.keepsData);
    await redis.resume();
    return redis;
  }

  get running(): boolean {
    return this.#server !== undefined;
  }

  /** Stops the server (SIGTERM; with `keepsData` everything written is in the append-only file). */
  async stop(): Promise<void> {
    await this.#server?.stop();
    this.#server = undefined;
  }

  /** Starts it again on the same port (and the same files). */
  async resume(): Promise<void> {
    if (this.#server) return;
    const persistence = this.#keepsData
      ? ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
      : ["--appendonly", "no", "--save", ""];
    this.#server = await startServerProcess(
      this.#binary,
      [
        ...["--port", String(this.#port), "--bind", "127.0.0.1", "--dir", this.#dir],
        ...persistence,
        ...["--daemonize", "no", "--loglevel", "notice", "--logfile", ""],
      ],
      { readyLine: "Ready to accept connections" },
    );
  }

  async close(): Promise<void> {
    await this.stop();
    await rm(this.#dir, { recursive: true, force: true });
  }
}
