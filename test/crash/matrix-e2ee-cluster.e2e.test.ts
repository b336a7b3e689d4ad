/**
 * Encrypted rooms in a scaled-out cluster: the real CLI as an ingress (it syncs, and so holds the
 * bot's one encryption device) and a worker (it runs the turns and posts through the client-server
 * API). The worker has no device: every event it puts into an encrypted room is encrypted by the
 * ingress (a call over BullMQ) and sent by the worker. The test asserts the type of every event the
 * bot put into the rooms — `m.room.encrypted`, never plaintext — and that the user reads them.
 *
 * Real parts: a private Synapse, the test Redis (BullMQ, the shared store), `switchboard start`
 * twice (offline model), a real encrypting client (matrix-js-sdk + WASM crypto).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeRedisKeys,
  TEST_REDIS_AVAILABLE,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../../packages/core/src/store/test-backends.ts";
import { PrivateSynapse, type RegisteredUser, synapseMissing } from "../services/synapse-service.ts";
import { CliProcess } from "../support/crash/cli-process.ts";
import { E2eeClient } from "../support/matrix/e2ee-client.ts";

const missing = synapseMissing() ?? (TEST_REDIS_AVAILABLE ? undefined : "no test Redis");

describe.skipIf(missing !== undefined)(
  "Matrix E2EE in a cluster: workers post through the ingress's device",
  () => {
    let synapse: PrivateSynapse;
    let root: string;
    let botUser: RegisteredUser;
    let aliceUser: RegisteredUser;
    let alice: E2eeClient;
    const redisPrefix = uniqueRedisPrefix("e2ee-cluster");
    const processes: CliProcess[] = [];

    beforeAll(async () => {
      synapse = await PrivateSynapse.start();
      root = await mkdtemp(join(tmpdir(), "switchboard-e2ee-cluster-"));
      botUser = await synapse.register("switchboard", { displayName: "Switchboard" });
      aliceUser = await synapse.register("alice");
      alice = await E2eeClient.start(aliceUser, synapse.url);
    }, 120_000);

    afterAll(async () => {
      alice?.stop();
      for (const cli of processes) await cli.kill();
      await synapse?.stop();
      await removeRedisKeys(redisPrefix);
      if (root) await rm(root, { recursive: true, force: true });
    });

    async function launch(role: "ingress" | "worker"): Promise<CliProcess> {
      const dir = join(root, role);
      await mkdir(dir, { recursive: true });
      const config = {
        model: "offline",
        store: `${TEST_REDIS_URL}/?prefix=${redisPrefix}`,
        logLevel: "info",
        logFormat: "json",
        role,
        scaleOut: { jobLockSeconds: 3, sweepSeconds: 2, leaderLeaseSeconds: 3 },
        team: { supervisor: { prompt: "Answer the user directly.", tools: [] }, specialists: [] },
        memory: { enabled: false },
        matrix: {
          homeserverUrl: synapse.url,
          encryption: true,
          displayName: "Switchboard",
          syncTimeoutMs: 1_000,
          streamEditIntervalMs: 500,
        },
      };
      await writeFile(join(dir, "switchboard.yaml"), JSON.stringify(config, null, 2));
      const cli = await CliProcess.start({
        cwd: dir,
        env: { SWITCHBOARD_MATRIX_ACCESS_TOKEN: botUser.accessToken },
        name: role,
        readyText: role === "worker" ? "running as worker" : "as ingress",
      });
      processes.push(cli);
      return cli;
    }

    /** Every event the bot put into `roomId` apart from its membership, as the homeserver stores it. */
    async function botEventTypes(roomId: string): Promise<string[]> {
      const page = (await synapse.request(
        "GET",
        `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/messages?dir=b&limit=200`,
        aliceUser.accessToken,
      )) as { chunk: { sender: string; type: string }[] };
      return page.chunk
        .filter((event) => event.sender === botUser.userId && event.type !== "m.room.member")
        .map((event) => event.type);
    }

    it("answers in an encrypted DM and an encrypted group thread, every bot event encrypted", {
      timeout: 120_000,
    }, async () => {
      const ingress = await launch("ingress");
      await ingress.waitForOutput("leading matrix receiving", 30_000);
      const worker = await launch("worker");
      expect(worker.stderr).toContain("through the process that syncs");

      const dm = await alice.createEncryptedRoom([botUser.userId], { direct: true });
      await alice.waitForJoin(dm, botUser.userId);
      const question = await alice.send(dm, "hello from a cluster");
      const answer = await alice.waitForMessage(dm, botUser.userId, /./);
      expect(answer.wireType).toBe("m.room.encrypted");
      expect(answer.decryptionFailed).toBe(false);
      expect(answer.content["m.relates_to"]).toMatchObject({ "m.in_reply_to": { event_id: question } });

      const group = await alice.createEncryptedRoom([botUser.userId], { name: "cluster team" });
      await alice.waitForJoin(group, botUser.userId);
      const mention = await alice.send(group, "Switchboard: and in a group?", { mentions: [botUser.userId] });
      const threaded = await alice.waitForMessage(group, botUser.userId, /./);
      expect(threaded.content["m.relates_to"]).toMatchObject({ rel_type: "m.thread", event_id: mention });

      for (const room of [dm, group]) {
        const types = await botEventTypes(room);
        expect(types.length).toBeGreaterThan(0);
        expect(types.filter((type) => type !== "m.room.encrypted")).toEqual([]);
      }
      // The turns ran in the worker, and the ingress encrypted for it.
      expect(worker.stderr).not.toMatch(/could not encrypt/);
      expect(ingress.stderr).not.toMatch(/could not answer a call/);
    });
  },
);
