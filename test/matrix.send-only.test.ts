import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "@switchboard/core";
import type { ApprovalPress } from "@switchboard/core/adapter";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { sendOnly } from "../packages/cli/src/scale-out/send-only-adapter.ts";
import { createMatrixAdapter, type MatrixAdapter } from "../packages/matrix/src/index.ts";
import { createWorld, type MatrixWorld } from "./support/matrix/bot-fixture.ts";
import { relatesOf } from "./support/matrix/events.ts";

const isSync = (request: string) => request.startsWith("GET /_matrix/client/v3/sync");

describe("Matrix send-only (a scale-out worker; real matrix-bot-sdk against the stand-in)", () => {
  let world: MatrixWorld;
  const adapters: MatrixAdapter[] = [];
  const stores: Store[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const adapter of adapters.splice(0)) await adapter.stop();
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    await world?.homeserver.close();
  });

  async function adapterOn(store: Store, config: { accessToken?: string; encryption?: boolean } = {}) {
    const adapter = await createMatrixAdapter(
      { homeserverUrl: world.homeserver.url, accessToken: "bot-token", syncTimeoutMs: 1_000, ...config },
      { store },
    );
    adapters.push(adapter);
    return adapter;
  }

  /** Two handles on one SQLite file: what two processes sharing a store see. */
  async function sharedStore(): Promise<[Store, Store]> {
    const dir = mkdtempSync(join(tmpdir(), "matrix-send-only-"));
    dirs.push(dir);
    const url = `sqlite://${join(dir, "shared.db")}`;
    const pair: [Store, Store] = [await openStore(url), await openStore(url)];
    stores.push(...pair);
    return pair;
  }

  it("posts, edits, shows typing and marks read through the API, and never syncs", async () => {
    world = await createWorld();
    const store = await openStore("memory://");
    stores.push(store);
    const question = world.homeserver.userSends(world.group, world.alice, { msgtype: "m.text", body: "hi" });
    const worker = await adapterOn(store);
    await worker.startSendOnly();
    const conversation = { platform: "matrix", path: [world.group, question] };

    await worker.setTyping(conversation, true);
    const posted = await worker.post({ conversation, text: "**first** draft", replyTo: question });
    await worker.edit(posted, "the whole answer");
    await worker.setTyping(conversation, false);

    const [answer, edit] = world.homeserver.eventsFrom(world.bot);
    expect(answer?.event_id).toBe(posted.id);
    expect(answer?.content.body).toBe("**first** draft");
    expect(answer && relatesOf(answer)).toMatchObject({ rel_type: "m.thread", event_id: question });
    expect(edit?.content["m.new_content"]).toMatchObject({ body: "the whole answer" });
    expect(world.homeserver.typing).toEqual([
      { roomId: world.group, typing: true },
      { roomId: world.group, typing: false },
    ]);
    expect(world.homeserver.receipts).toEqual([
      { user: world.bot, roomId: world.group, type: "m.read", eventId: question },
    ]);
    expect(world.homeserver.requests.filter(isSync)).toEqual([]);
    expect(world.homeserver.requests.filter((request) => request.endsWith("/filter"))).toEqual([]);
  });

  it("stop() after startSendOnly clears typing and ends delivery", async () => {
    world = await createWorld();
    const store = await openStore("memory://");
    stores.push(store);
    const worker = await adapterOn(store);
    await worker.startSendOnly();
    const conversation = { platform: "matrix", path: [world.dm] };
    await worker.setTyping(conversation, true);
    await worker.stop();
    expect(world.homeserver.typing).toEqual([
      { roomId: world.dm, typing: true },
      { roomId: world.dm, typing: false },
    ]);
    await expect(worker.post({ conversation, text: "late" })).rejects.toThrow(/not started/);
    expect(world.homeserver.requests.filter(isSync)).toEqual([]);
  });

  it("a prompt the worker edits into its answer is decided by the process that syncs, through the shared store", async () => {
    world = await createWorld();
    const [workerStore, ingressStore] = await sharedStore();
    const question = world.homeserver.userSends(world.group, world.alice, {
      msgtype: "m.text",
      body: "refund",
    });
    const conversation = { platform: "matrix", path: [world.group, question] };
    const worker = await adapterOn(workerStore);
    await worker.startSendOnly();
    // Streamed: the prompt is an edit, so its original content carries no approval mark.
    const posted = await worker.post({ conversation, text: "checking…", replyTo: question });
    await worker.edit(posted, "billing wants to run refund(40)", {
      requestId: "req-1",
      requesterId: world.alice,
    });
    expect(world.homeserver.requests.filter(isSync)).toEqual([]);

    const presses: ApprovalPress[] = [];
    const ingress = await adapterOn(ingressStore);
    ingress.useApprovals({
      async decide(press) {
        presses.push(press);
        return { kind: "decided", approved: press.approved, by: press.actor.id };
      },
    });
    await ingress.start(async () => undefined);
    world.homeserver.userReacts(world.group, world.alice, posted.id, "✅");
    await waitFor("the reaction decided", () => presses.length > 0);
    expect(presses).toEqual([
      {
        requestId: "req-1",
        approved: true,
        platform: "matrix",
        actor: { id: world.alice, name: world.alice },
      },
    ]);
    const outcome = await waitFor("the prompt edited to its outcome", () =>
      world.homeserver
        .eventsFrom(world.bot)
        .map((event) => (event.content["m.new_content"] as { body?: string } | undefined)?.body ?? "")
        .find((body) => body.includes("Approved by")),
    );
    expect(outcome).toBe(`billing wants to run refund(40)\n\n✅ Approved by ${world.alice}`);
  });

  it("as a worker's adapter (sendOnly), a decision typed in chat edits the prompt, and places have names", async () => {
    world = await createWorld();
    world.homeserver.state.nameRoom(world.group, "Support", world.alice);
    const store = await openStore("memory://");
    stores.push(store);
    const inner = await adapterOn(store);
    const worker = sendOnly(inner);
    await worker.start(async () => undefined);
    const conversation = { platform: "matrix", path: [world.group] };
    const prompt = await worker.post({
      conversation,
      text: "billing wants to run refund(40)",
      approval: { requestId: "req-1", requesterId: world.alice },
    });
    await worker.showDecision?.(prompt, "billing wants to run refund(40)", {
      approved: true,
      by: world.alice,
    });
    const edits = world.homeserver
      .eventsFrom(world.bot)
      .filter((event) => relatesOf(event).event_id === prompt.id);
    expect(edits.map((event) => (event.content["m.new_content"] as { body: string }).body)).toEqual([
      `billing wants to run refund(40)\n\n✅ Approved by ${world.alice}`,
    ]);
    expect(await worker.describePlace?.(conversation)).toEqual({ room: "Support" });
    expect(world.homeserver.requests.filter(isSync)).toEqual([]);
  });

  it("uses the login the syncing process kept in the shared store: no new device per worker", async () => {
    world = await createWorld();
    const [ingressStore, workerStore] = await sharedStore();
    const login = { userId: world.bot, password: "bot-password" };
    const ingress = await createMatrixAdapter(
      { homeserverUrl: world.homeserver.url, syncTimeoutMs: 1_000, ...login },
      { store: ingressStore },
    );
    adapters.push(ingress);
    await ingress.start(async () => undefined);
    const worker = await createMatrixAdapter(
      { homeserverUrl: world.homeserver.url, ...login },
      { store: workerStore },
    );
    adapters.push(worker);
    await worker.startSendOnly();
    await worker.post({ conversation: { platform: "matrix", path: [world.dm] }, text: "hello" });
    expect(world.homeserver.logins).toEqual([world.bot]);
    expect(world.homeserver.eventsFrom(world.bot).map((event) => event.content.body)).toEqual(["hello"]);
  });

  it("refuses to start send-only with encryption on, before any request", async () => {
    world = await createWorld();
    const store = await openStore("memory://");
    stores.push(store);
    const worker = await adapterOn(store, { encryption: true });
    await expect(worker.startSendOnly()).rejects.toThrow(/a worker cannot encrypt/);
    expect(world.homeserver.requests).toEqual([]);
  });
});
