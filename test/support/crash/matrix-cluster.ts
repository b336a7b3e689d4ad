/**
 * A scaled-out cluster on Matrix: the homeserver stand-in (one group room, Alice and the bot), a
 * model stub, a private prefix on the test Redis, and the real CLI as ingresses (which elect one
 * leader for the sync) and workers (which answer through the client-server API alone).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../../../packages/core/src/store/test-backends.ts";
import { freePort } from "../../services/free-port.ts";
import { FakeHomeserver } from "../matrix/fake-homeserver.ts";
import type { RoomEvent } from "../matrix/homeserver-state.ts";
import { type ModelScript, ModelStub } from "../model/model-stub.ts";
import { CliProcess } from "./cli-process.ts";

const BOT_TOKEN = "bot-token";

export class MatrixCluster {
  readonly homeserver: FakeHomeserver;
  readonly stub: ModelStub;
  readonly bot: string;
  readonly alice: string;
  readonly room: string;
  readonly processes: CliProcess[] = [];
  readonly #root: string;
  readonly #redisPrefix: string;
  readonly #leaseSeconds: number;
  #count = 0;

  private constructor(init: {
    homeserver: FakeHomeserver;
    stub: ModelStub;
    root: string;
    redisPrefix: string;
    leaseSeconds: number;
  }) {
    this.homeserver = init.homeserver;
    this.stub = init.stub;
    this.#root = init.root;
    this.#redisPrefix = init.redisPrefix;
    this.#leaseSeconds = init.leaseSeconds;
    this.bot = this.homeserver.registerUser("switchboard", { displayName: "Switchboard", token: BOT_TOKEN });
    this.alice = this.homeserver.registerUser("alice", { displayName: "Alice", token: "alice-token" });
    this.room = this.homeserver.state.createRoom({ members: [this.alice, this.bot] });
  }

  static async start(options: { script: ModelScript; leaseSeconds: number }): Promise<MatrixCluster> {
    return new MatrixCluster({
      homeserver: await FakeHomeserver.start(),
      stub: await ModelStub.start(options.script),
      root: await mkdtemp(join(tmpdir(), "switchboard-matrix-cluster-")),
      redisPrefix: uniqueRedisPrefix("matrix-cluster"),
      leaseSeconds: options.leaseSeconds,
    });
  }

  /** Starts the real CLI in `role`; resolves once it runs (an ingress: leading or standing by). */
  async startProcess(
    role: "ingress" | "worker",
    options: { metricsPort?: number } = {},
  ): Promise<CliProcess> {
    this.#count += 1;
    const dir = join(this.#root, `process-${this.#count}`);
    await mkdir(dir);
    const config = {
      model: this.stub.modelConfig(),
      store: `${TEST_REDIS_URL}/?prefix=${this.#redisPrefix}`,
      logLevel: "info",
      role,
      engine: { lockTtlSeconds: 3 },
      scaleOut: { jobLockSeconds: 3, sweepSeconds: 2, leaderLeaseSeconds: this.#leaseSeconds },
      team: { supervisor: { prompt: "Answer the user directly.", tools: [] }, specialists: [] },
      memory: { enabled: false },
      matrix: {
        homeserverUrl: this.homeserver.url,
        syncTimeoutMs: 1_000,
        streaming: "off",
        readReceipts: false,
      },
      ...(options.metricsPort === undefined ? {} : { http: { port: options.metricsPort } }),
    };
    await writeFile(join(dir, "switchboard.yaml"), JSON.stringify(config, null, 2));
    const cli = await CliProcess.start({
      cwd: dir,
      env: { SWITCHBOARD_MATRIX_ACCESS_TOKEN: BOT_TOKEN },
      name: `process ${this.#count} (${role})`,
      readyText: role === "worker" ? "running as worker" : "as ingress",
    });
    this.processes.push(cli);
    return cli;
  }

  freePort(): Promise<number> {
    return freePort();
  }

  /** Alice asks the bot in the room (a top-level mention: its answer goes into a thread rooted at it). */
  ask(text: string): string {
    return this.homeserver.userSends(this.room, this.alice, {
      msgtype: "m.text",
      body: `Switchboard: ${text}`,
      "m.mentions": { user_ids: [this.bot] },
    });
  }

  /** The bot's messages that answer `eventId` (in its thread). */
  answersTo(eventId: string): RoomEvent[] {
    return this.homeserver.eventsFrom(this.bot).filter((event) => {
      const relation = event.content["m.relates_to"] as { rel_type?: string; event_id?: string } | undefined;
      return relation?.rel_type === "m.thread" && relation.event_id === eventId;
    });
  }

  async close(): Promise<void> {
    for (const cli of this.processes) await cli.kill();
    await this.stub.close();
    await this.homeserver.close();
    await removeRedisKeys(this.#redisPrefix);
    await rm(this.#root, { recursive: true, force: true });
  }
}
