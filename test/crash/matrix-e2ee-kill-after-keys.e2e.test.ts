/**
 * The bot SIGKILLed right after the homeserver accepted its one-time keys, before it heard back:
 * the homeserver holds keys the bot has not marked as published. Started again on the same store,
 * it must publish the very same keys (no "already exists" refusal) and decrypt a new Olm session
 * made from one of them — the keys were in the store before they left.
 *
 * Real parts: a private Synapse, the real `switchboard start` (offline model, SQLite store), a real
 * encrypting client (matrix-js-sdk + WASM crypto). A small proxy between bot and Synapse holds the
 * first key upload's answer, so the kill lands in exactly that window.
 */

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrivateSynapse, type RegisteredUser, synapseMissing } from "../services/synapse-service.ts";
import { CliProcess } from "../support/crash/cli-process.ts";
import { E2eeClient } from "../support/matrix/e2ee-client.ts";

const missing = synapseMissing();

/** Forwards to Synapse; while armed, holds the answer to a key upload that carries one-time keys. */
class KeyUploadProxy {
  armed = true;
  held = 0;
  /** Status of every key upload answered to the bot. */
  readonly uploadStatuses: number[] = [];
  readonly #server: Server;
  readonly #target: string;

  private constructor(target: string) {
    this.#target = target;
    this.#server = createServer((request, response) => {
      void this.#forward(request, response);
    });
  }

  static async start(target: string): Promise<KeyUploadProxy> {
    const proxy = new KeyUploadProxy(target);
    await new Promise<void>((resolve) => proxy.#server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async #forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers))
      if (typeof value === "string" && name !== "host" && name !== "content-length") headers[name] = value;
    let answer: Response;
    try {
      answer = await fetch(`${this.#target}${request.url}`, {
        method: request.method ?? "GET",
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
    } catch {
      response.destroy();
      return;
    }
    const text = Buffer.from(await answer.arrayBuffer());
    if (request.url?.includes("/keys/upload")) {
      const carriesKeys = /"one_time_keys":\{"/.test(body.toString());
      this.uploadStatuses.push(answer.status);
      if (this.armed && carriesKeys) {
        // Synapse has the keys now; the bot never hears so (the socket stays open until the kill).
        this.held++;
        return;
      }
    }
    response.writeHead(answer.status, {
      "content-type": answer.headers.get("content-type") ?? "application/json",
    });
    response.end(text);
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

describe.skipIf(missing !== undefined)(
  "Matrix E2EE: SIGKILL right after the one-time keys were uploaded",
  () => {
    let synapse: PrivateSynapse;
    let proxy: KeyUploadProxy;
    let root: string;
    let botUser: RegisteredUser;
    let alice: E2eeClient;
    const processes: CliProcess[] = [];

    beforeAll(async () => {
      synapse = await PrivateSynapse.start();
      proxy = await KeyUploadProxy.start(synapse.url);
      root = await mkdtemp(join(tmpdir(), "switchboard-e2ee-kill-"));
      botUser = await synapse.register("switchboard", { displayName: "Switchboard" });
      alice = await E2eeClient.start(await synapse.register("alice"), synapse.url);
    }, 120_000);

    afterAll(async () => {
      alice?.stop();
      for (const cli of processes) await cli.kill();
      await proxy?.close();
      await synapse?.stop();
      if (root) await rm(root, { recursive: true, force: true });
    });

    async function launch(name: string): Promise<CliProcess> {
      const dir = join(root, name);
      await mkdir(dir, { recursive: true });
      const config = {
        model: "offline",
        store: `sqlite://${join(root, "switchboard.db")}`,
        logLevel: "info",
        team: { supervisor: { prompt: "Answer the user directly.", tools: [] }, specialists: [] },
        memory: { enabled: false },
        matrix: {
          homeserverUrl: proxy.url,
          encryption: true,
          displayName: "Switchboard",
          syncTimeoutMs: 1_000,
          streaming: "off",
        },
      };
      await writeFile(join(dir, "switchboard.yaml"), JSON.stringify(config, null, 2));
      const cli = CliProcess.launch({
        cwd: dir,
        env: { SWITCHBOARD_MATRIX_ACCESS_TOKEN: botUser.accessToken },
        name,
        readyText: "running on",
      });
      processes.push(cli);
      return cli;
    }

    it("comes back without 'already exists' and decrypts a session made from those keys", async () => {
      const first = await launch("first");
      await waitFor("the first key upload to reach Synapse", () => proxy.held > 0 || undefined, 60_000);
      expect((await first.kill()).signal).toBe("SIGKILL");
      proxy.armed = false;

      const second = await launch("second");
      await second.waitForOutput("running on", 60_000);
      const dm = await alice.createEncryptedRoom([botUser.userId], { direct: true });
      await alice.waitForJoin(dm, botUser.userId);
      await alice.send(dm, "hello after the crash");
      const answer = await alice.waitForMessage(dm, botUser.userId, /./);
      expect(answer.wireType).toBe("m.room.encrypted");
      expect(answer.decryptionFailed).toBe(false);
      expect(second.stderr).not.toMatch(/already exists/i);
      expect(second.stderr).not.toMatch(/could not decrypt/i);
      // Every upload after the crash was accepted (the held one was accepted too, unseen by the bot).
      expect(proxy.uploadStatuses.filter((status) => status !== 200)).toEqual([]);
    });
  },
);
