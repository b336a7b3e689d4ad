/**
 * One crash test's world: the Slack stand-in (HTTP events, message metadata, conversations.replies),
 * a model stub per process slot, one shared store (a SQLite file, or a private prefix on the test
 * Redis), and the real CLI started, killed and restarted in those slots.
 *
 *   const world = await CrashWorld.start({ store: "sqlite", slots: 1 });
 *   const cli = await world.startCli(0);
 *   await world.traffic.deliverAll(world.transport(0), origins);
 *   await cli.kill();                 // SIGKILL
 *   await world.startCli(0);          // same store, same config
 *   await world.close();
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../../../packages/core/src/store/test-backends.ts";
import { freePort } from "../../services/free-port.ts";
import { type ModelScript, ModelStub } from "../model/model-stub.ts";
import { HttpEventTransport } from "../slack/event-transport.ts";
import { FakeSlack } from "../slack/fake-slack.ts";
import { CliProcess } from "./cli-process.ts";
import { type CrashConfigOptions, crashConfig, writeCrashConfig } from "./crash-config.ts";
import { SlackTraffic } from "./slack-traffic.ts";

export type StoreKind = "sqlite" | "redis";

/** A process of a scaled-out cluster (BullMQ on the shared Redis); absent: role `all`. */
export type ClusterRole = "ingress" | "worker";

export interface CrashWorldOptions {
  readonly store: StoreKind;
  /** Redis: this server instead of the test run's (a test that stops and starts its own). */
  readonly redisUrl?: string;
  /** SQLite: the folder the database file goes in (a test's own small file system); default a temp folder. */
  readonly sqliteDir?: string;
  /** Process slots (each its own port, model stub and folder; all on the one store). Default 1. */
  readonly slots?: number;
  /** Default 3 s: a dead process's locks expire quickly. */
  readonly lockTtlSeconds?: number;
  readonly script?: ModelScript;
  /** `model:` call limits (`maxRetries`, `timeoutSeconds`) and later retries (`retryLater`). */
  readonly modelLimits?: Parameters<ModelStub["modelConfig"]>[0];
  readonly config?: Pick<CrashConfigOptions, "tools" | "supervisorTools" | "commandWords" | "extra">;
}

interface Slot {
  readonly dir: string;
  readonly port: number;
  readonly stub: ModelStub;
  readonly transport: HttpEventTransport;
  cli: CliProcess | undefined;
  starts: number;
}

export class CrashWorld {
  readonly slack: FakeSlack;
  readonly traffic: SlackTraffic;
  readonly storeUrl: string;
  readonly #slots: Slot[];
  readonly #options: CrashWorldOptions;
  #config: CrashWorldOptions["config"];
  readonly #redisPrefix: string | undefined;
  readonly #root: string;

  private constructor(init: {
    slack: FakeSlack;
    slots: Slot[];
    options: CrashWorldOptions;
    storeUrl: string;
    redisPrefix: string | undefined;
    root: string;
  }) {
    this.slack = init.slack;
    this.traffic = new SlackTraffic(init.slack.state);
    this.#slots = init.slots;
    this.#options = init.options;
    this.#config = init.options.config;
    this.storeUrl = init.storeUrl;
    this.#redisPrefix = init.redisPrefix;
    this.#root = init.root;
  }

  static async start(options: CrashWorldOptions): Promise<CrashWorld> {
    const root = await mkdtemp(join(tmpdir(), "switchboard-crash-"));
    // Slack's echoes of the bot's own posts are left out: they only add traffic the app ignores.
    const slack = await FakeSlack.start({ transport: "http", echoBotMessages: false });
    const redisPrefix = options.store === "redis" ? uniqueRedisPrefix("crash") : undefined;
    const storeUrl =
      redisPrefix !== undefined
        ? `${options.redisUrl ?? TEST_REDIS_URL}/?prefix=${redisPrefix}`
        : `sqlite://${join(options.sqliteDir ?? root, "switchboard.db")}`;
    const slots: Slot[] = [];
    for (let index = 0; index < (options.slots ?? 1); index++) {
      const dir = join(root, `slot-${index}`);
      await mkdir(dir);
      const port = await freePort();
      slots.push({
        dir,
        port,
        stub: await ModelStub.start(options.script),
        transport: new HttpEventTransport(`http://127.0.0.1:${port}/slack/events`),
        cli: undefined,
        starts: 0,
      });
    }
    return new CrashWorld({ slack, slots, options, storeUrl, redisPrefix, root });
  }

  /** The configuration processes started from now on get (a test that needs the stand-ins' ids first). */
  configure(config: CrashWorldOptions["config"]): void {
    this.#config = config;
  }

  /** The model stub slot `index`'s process talks to. */
  stub(index = 0): ModelStub {
    return this.#slot(index).stub;
  }

  /** Every slot's stub answers with `script` from now on. */
  set script(script: ModelScript) {
    for (const slot of this.#slots) slot.stub.script = script;
  }

  /** Where Slack sends slot `index`'s events. */
  transport(index = 0): HttpEventTransport {
    return this.#slot(index).transport;
  }

  cli(index = 0): CliProcess | undefined {
    return this.#slot(index).cli;
  }

  /**
   * Starts (or restarts) the CLI in slot `index`, on the shared store; resolves once it serves Slack
   * (an ingress, or role `all`) or takes work (a worker).
   */
  async startCli(index = 0, options: { role?: ClusterRole } = {}): Promise<CliProcess> {
    const slot = this.#slot(index);
    if (slot.cli?.running) throw new Error(`slot ${index} is still running (pid ${slot.cli.pid})`);
    const config = crashConfig({
      storeUrl: this.storeUrl,
      model: slot.stub.modelConfig(this.#options.modelLimits),
      slackApiUrl: this.slack.api.apiUrl,
      port: slot.port,
      lockTtlSeconds: this.#options.lockTtlSeconds ?? 3,
      ...this.#config,
      ...(options.role ? { role: options.role, jobLockSeconds: this.#options.lockTtlSeconds ?? 3 } : {}),
    });
    const env = await writeCrashConfig(slot.dir, config);
    slot.starts += 1;
    slot.cli = await CliProcess.start({
      cwd: slot.dir,
      env,
      name: `process ${index}${options.role ? `, ${options.role}` : ""} (start ${slot.starts})`,
      readyText: options.role === "worker" ? "running as worker" : "running on slack",
    });
    return slot.cli;
  }

  /** SIGKILLs every running process, then closes the stand-ins and deletes the store. */
  async close(): Promise<void> {
    for (const slot of this.#slots) await slot.cli?.kill();
    this.slack.api.responseGate = undefined;
    await Promise.all(this.#slots.map((slot) => slot.stub.close()));
    await this.slack.close();
    // A test's own Redis is thrown away whole by the test.
    if (this.#redisPrefix && !this.#options.redisUrl) await removeRedisKeys(this.#redisPrefix);
    await rm(this.#root, { recursive: true, force: true });
  }

  /** The last lines each process wrote to stderr, for a failure message. */
  logs(lines = 25): string {
    return this.#slots
      .map((slot, index) => {
        const tail = slot.cli?.stderr.trimEnd().split("\n").slice(-lines).join("\n") ?? "(not started)";
        return `--- process ${index}, last ${lines} lines ---\n${tail}`;
      })
      .join("\n");
  }

  /** Every line each process logged that names one of `needles` (a log's tail shows only its last moments). */
  logsAbout(needles: readonly string[]): string {
    return this.#slots
      .map((slot, index) => {
        const lines = (slot.cli?.stderr ?? "")
          .split("\n")
          .filter((line) => needles.some((needle) => line.includes(needle)));
        return `--- process ${index}, ${lines.length} lines about ${needles.join(", ")} ---\n${lines.join("\n")}`;
      })
      .join("\n");
  }

  #slot(index: number): Slot {
    const slot = this.#slots[index];
    if (!slot) throw new Error(`no process slot ${index} (this world has ${this.#slots.length})`);
    return slot;
  }
}
