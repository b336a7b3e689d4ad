/**
 * Leader election for the Matrix sync in a scaled-out cluster: two ingresses and a worker, the real
 * CLI against the homeserver stand-in. Only the leading ingress syncs; when it is SIGKILLed, the
 * standby takes the sync over from the stored position — the questions asked before the kill are
 * not received again, those asked during the takeover are not lost — and every question is
 * answered exactly once, by the worker, through the client-server API.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, expect, it } from "vitest";
import { describeWithRedis } from "../../packages/core/src/store/test-backends.ts";
import { MatrixCluster } from "../support/crash/matrix-cluster.ts";
import { answerWith, shortAnswer, tokens } from "../support/crash/scripted-answers.ts";

const LEASE_SECONDS = 2;

let cluster: MatrixCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** A series' value in a Prometheus exposition (0 when the series is absent). */
async function counter(url: string, series: string): Promise<number> {
  const text = await (await fetch(url)).text();
  const line = text.split("\n").find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describeWithRedis("scale-out: the Matrix sync in one ingress at a time", () => {
  it("a standby ingress takes the sync over when the leader is SIGKILLed, without replaying or losing messages", {
    timeout: 120_000,
  }, async () => {
    const world = await MatrixCluster.start({ script: answerWith(shortAnswer), leaseSeconds: LEASE_SECONDS });
    cluster = world;
    const leader = await world.startProcess("ingress");
    await leader.waitForOutput("leading matrix receiving", 10_000);
    const metricsPort = await world.freePort();
    const standby = await world.startProcess("ingress", { metricsPort });
    await standby.waitForOutput("standing by for matrix receiving", 10_000);
    await world.startProcess("worker");

    const before = tokens("q", 20);
    const asked = new Map<string, string>();
    for (const token of before.slice(0, 10)) asked.set(token, world.ask(`question ${token}`));
    await waitFor(
      "the first ten answers",
      () => [...asked.values()].every((id) => world.answersTo(id).length > 0),
      30_000,
    );
    // The leader has synced the answers too; nothing is in flight when it dies.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Only the leader syncs: the standby has not connected its sync.
    expect(standby.stderr).not.toContain("leading matrix receiving");
    expect(standby.stderr).not.toContain("Matrix connected");
    const metrics = `http://127.0.0.1:${metricsPort}/metrics`;
    expect(await counter(metrics, 'switchboard_leading{platform="matrix"}')).toBe(0);

    await leader.kill();
    // Asked while nobody syncs: the new leader must receive them from the stored position.
    for (const token of before.slice(10)) asked.set(token, world.ask(`question ${token}`));
    await standby.waitForOutput("leading matrix receiving", LEASE_SECONDS * 1000 * 3);
    await waitFor(
      "every answer",
      () => [...asked.values()].every((id) => world.answersTo(id).length > 0),
      30_000,
    );
    // Late duplicates would come within a couple of sync rounds.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    for (const [token, id] of asked) {
      const answers = world.answersTo(id).map((event) => event.content.body);
      expect(answers, token).toEqual([shortAnswer(token)]);
    }
    expect(world.stub.requests).toHaveLength(20);
    // The standby resumed from the leader's stored position: nothing it had received came again.
    expect(await counter(metrics, 'switchboard_leading{platform="matrix"}')).toBe(1);
    expect(await counter(metrics, 'switchboard_messages_refused_total{reason="duplicate"}')).toBe(0);
  });
});
