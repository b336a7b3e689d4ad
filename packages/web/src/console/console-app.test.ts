import { type Command, type InboundMessage, openStore, type Store } from "@switchboard/core";
import { learningsConfigSchema, requestsConfigSchema } from "@switchboard/core/config";
import { type BlobStore, Learnings, openBlobStore, parseBlobId } from "@switchboard/core/host";
import { ActiveAgentStore, RequestTracker, UsageBook } from "@switchboard/core/records";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConversationLog } from "../activity/conversation-log.ts";
import { LiveFeed } from "../activity/live-feed.ts";
import { WebAdapter } from "../adapter/web-adapter.ts";
import { healthReport } from "../health/health-report.ts";
import { PlatformActivity } from "../health/platform-activity.ts";
import { RecentProblems } from "../health/recent-problems.ts";
import { usageFromBook } from "../insight/usage-from-book.ts";
import { EMPTY_USAGE } from "../insight/usage-report.ts";
import { createConsoleApp } from "./console-app.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import { FRAGMENT_HEADER } from "./views/render.ts";

const TOKEN = "console-app-test-token";
const auth = { authorization: `Bearer ${TOKEN}` };
const KEY = "slack:T1:C1:1700.1";

let store: Store;
let ran: { name: string; key: string; args: string }[];
let decisions: { requestId: string; approved: boolean; by: string }[];
let feed: LiveFeed;
let log: ConversationLog;

function command(name: string, reply: string): Command {
  return {
    name,
    summary: name,
    async run({ key, args }) {
      ran.push({ name, key, args });
      return { reply };
    },
  };
}

function app(extra: Partial<Pick<ConsoleDeps, "chat" | "files" | "usage" | "learnings">> = {}) {
  const problems = new RecentProblems();
  const activity = new PlatformActivity();
  const commands = new Map(
    [command("reset", "Fresh start."), command("forget", "Forgotten: 3.")].map((c) => [c.name, c]),
  );
  return createConsoleApp({
    token: TOKEN,
    log,
    feed,
    chat: new WebAdapter(),
    team: {
      activeAgents: new ActiveAgentStore(store),
      agents: () => [{ name: "billing", description: "money", model: "m" }],
    },
    requests: new RequestTracker(store, { now: () => Date.now() }, requestsConfigSchema.parse({})),
    decide: async (requestId, decision) => {
      decisions.push({ requestId, ...decision });
    },
    commands,
    steps: { stepsOfRun: async () => [] },
    usage: { report: async () => EMPTY_USAGE },
    health: () =>
      healthReport({
        version: "test",
        startedAt: 0,
        atomic: store.atomic,
        activity,
        problems,
        engine: () => ({
          lockWaits: 4,
          runningTurns: 240,
          maxTurns: 2_000,
          waitingToStart: 3,
          cpuSlots: { limit: 16, inUse: 9, waiting: 3 },
          eventLoop: { delayP99Ms: 14, delayMaxMs: 30, utilization: 0.62 },
          modelEndpoints: [
            {
              endpoint: "https://api.openai.com/v1",
              limit: 64,
              inFlight: 64,
              queued: 170,
              pausedUntil: Date.now() + 20_000,
              waitingConversations: [],
              congestion: { rate_limited: 12, overloaded: 0, timeout: 1 },
              reductions: 2,
            },
          ],
        }),
      }),
    isWorking: () => false,
    ...extra,
  });
}

beforeEach(async () => {
  store = await openStore("memory://");
  ran = [];
  decisions = [];
  feed = new LiveFeed();
  log = new ConversationLog(store);
  await log.noteInbound({
    id: "m1",
    conversation: { platform: "slack", path: ["T1", "C1", "1700.1"] },
    author: { id: "U1", displayName: "Ana <script>", isBot: false, isSelf: false },
    text: "<img src=x onerror=alert(1)> I was charged twice",
    isDirect: true,
    mentionsBot: false,
    isEdit: false,
    sentAt: 1_000,
  });
});
afterEach(async () => {
  await store.close();
});

describe("the console app", () => {
  it("lists the learnings agents keep, escaped, and deletes one as the operator", async () => {
    const learnings = new Learnings({
      store,
      config: learningsConfigSchema.parse({}),
      clock: { now: () => Date.UTC(2026, 10, 25) },
    });
    const { learning } = await learnings.remember(KEY, "U1", "user", "Prefers <b>EUR</b> invoices");
    await learnings.remember(KEY, "U1", "place", "This channel is billing");
    const source = {
      listing: (limit: number) => learnings.store.listing(limit),
      remove: async (subject: string, id: string) =>
        (await learnings.store.removeFrom(subject, id)) !== undefined,
    };
    const page = await (
      await app({ learnings: source }).request("/console/learnings", { headers: auth })
    ).text();
    expect(page).toContain("2 learnings about 2 subjects");
    expect(page).toContain("Person <code>slack:U1</code>");
    expect(page).toContain(`<code>${learning.id}</code> Prefers &lt;b&gt;EUR&lt;/b&gt; invoices`);
    expect(page).toContain("This channel is billing");
    const deleted = await app({ learnings: source }).request("/console/learnings/delete", {
      method: "POST",
      headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ subject: "user:slack:U1", id: learning.id }).toString(),
    });
    expect(deleted.status).toBe(303);
    expect(await learnings.promptFor(KEY, "U1")).not.toContain("EUR");
    expect(await learnings.promptFor(KEY, "U1")).toContain("This channel is billing");
  });

  it("escapes what users wrote and sends a strict content security policy", async () => {
    const response = await app().request(`/console/conversations/${encodeURIComponent(KEY)}`, {
      headers: auth,
    });
    const page = await response.text();
    expect(response.status).toBe(200);
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt; I was charged twice");
    expect(page).not.toContain("<img src=x");
    expect(page).toContain("Ana &lt;script&gt;");
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page).not.toContain(TOKEN);
  });

  it("shows the cost of calls to a model with no price as unknown, never as free", async () => {
    const now = Date.UTC(2026, 10, 23, 12);
    const book = new UsageBook(store, { retentionDays: 7, clock: { now: () => now } });
    const call = (model: string, costUsd: number | undefined) =>
      book.record({
        at: now,
        conversationKey: KEY,
        userId: "U1",
        agent: "billing",
        model,
        inputTokens: 100,
        outputTokens: 10,
        cachedTokens: 0,
        costUsd,
      });
    await call("gpt-4o", 0.02);
    await call("mystery-model", undefined);
    await book.flushed();
    const usage = usageFromBook(book, () => now);
    const page = await (await app({ usage }).request("/console/usage?days=1", { headers: auth })).text();
    expect(page).toContain("220 tokens · $0.02 + unknown in the last day");
    expect(page).toMatch(
      /<td>mystery-model<\/td>(<td class="num">[^<]*<\/td>){3}<td class="num">unknown<\/td>/,
    );
    expect(page).toMatch(/<td>gpt-4o<\/td>(<td class="num">[^<]*<\/td>){3}<td class="num">\$0\.02<\/td>/);
  });

  it("shows the engine's lock waits, turns in progress and model endpoints on the health page", async () => {
    const page = await (await app().request("/console/health", { headers: auth })).text();
    expect(page).toContain('Lock waits: <strong data-figure="lock-waits">4</strong>');
    expect(page).toContain("Turns in progress: <strong>240</strong> of at most 2000");
    expect(page).toContain('waiting to start: <strong data-figure="waiting-to-start">3</strong>');
    expect(page).toContain("Computing now: <strong>9</strong> of 16 CPU slots");
    expect(page).toMatch(
      /https:\/\/api\.openai\.com\/v1<div class="sub">paused by the provider's Retry-After/,
    );
    expect(page).toContain('<td class="num">64</td><td class="num">64</td><td class="num">170</td>');
    expect(page).toContain('<td class="num">12 / 0 / 1</td>');
  });

  it("answers a live update with the page's live region only", async () => {
    const response = await app().request("/console/conversations", {
      headers: { ...auth, [FRAGMENT_HEADER]: "1" },
    });
    const fragment = await response.text();
    expect(fragment).toContain("<h1>Conversations</h1>");
    expect(fragment).not.toContain("<html");
  });

  it("runs an action as its chat command, and forgets only after the confirmation is ticked", async () => {
    const console = app();
    const path = `/console/conversations/${encodeURIComponent(KEY)}/actions`;
    const post = (body: Record<string, string>) =>
      console.request(path, { method: "POST", headers: auth, body: new URLSearchParams(body) });
    const unconfirmed = await post({ action: "forget" });
    expect(decodeURIComponent(unconfirmed.headers.get("location") ?? "")).toContain("tick the confirmation");
    expect(ran).toEqual([]);
    const forgotten = await post({ action: "forget", confirm: "yes" });
    expect(decodeURIComponent(forgotten.headers.get("location") ?? "")).toContain("Forgotten: 3.");
    await post({ action: "reset" });
    expect(ran).toEqual([
      { name: "forget", key: KEY, args: "confirm" },
      { name: "reset", key: KEY, args: "" },
    ]);
    const missing = await post({ action: "supervisor" });
    expect(decodeURIComponent(missing.headers.get("location") ?? "")).toContain("not enabled");
    expect((await post({ action: "drop tables" })).status).toBe(400);
    const badKey = await console.request("/console/conversations/Not%20a%20key/actions", {
      method: "POST",
      headers: auth,
      body: new URLSearchParams({ action: "reset" }),
    });
    expect(badKey.status).toBe(404);
  });

  it("records an approval as the console operator, and refuses anything but approve or deny", async () => {
    const console = app();
    const decide = (decision: string) =>
      console.request("/console/requests/req-1/decision", {
        method: "POST",
        headers: auth,
        body: new URLSearchParams({ decision }),
      });
    expect((await decide("approve")).status).toBe(303);
    expect((await decide("maybe")).status).toBe(400);
    expect(decisions).toEqual([{ requestId: "req-1", approved: true, by: "console operator" }]);
  });

  it("streams change notices to the live pages", async () => {
    const response = await app().request("/console/events", { headers: auth });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no stream");
    const decoder = new TextDecoder();
    let received = decoder.decode((await reader.read()).value);
    expect(received).toContain("event: ready");
    feed.publish({ topic: "requests" });
    while (!received.includes("event: change")) received += decoder.decode((await reader.read()).value);
    expect(received).toContain('"topic":"requests"');
    await reader.cancel();
  });

  describe("files", () => {
    let blobs: BlobStore;
    let chat: WebAdapter;
    let sent: InboundMessage[];
    const MAX = 64 * 1024;
    const withFiles = () =>
      app({
        chat,
        files: {
          open: (blob) => blobs.open(blob),
          downloaded: async () => [],
          maxBytes: MAX,
          maxPerMessage: 2,
        },
      });
    const upload = (console: ReturnType<typeof app>, files: File[], text = "") => {
      const form = new FormData();
      form.set("thread", "main");
      form.set("text", text);
      for (const file of files) form.append("files", file);
      return console.request("/console/chat/send", {
        method: "POST",
        headers: { ...auth, [FRAGMENT_HEADER]: "1" },
        body: form,
      });
    };

    beforeEach(async () => {
      blobs = await openBlobStore({ storeUrl: "memory://", cwd: "/", retainDays: 1 });
      chat = new WebAdapter();
      chat.useFiles({ blobs, maxBytes: MAX });
      sent = [];
      await chat.start(async (message) => {
        sent.push(message);
      });
    });

    it("takes a picked file with the message: kept in the conversation's space, read back through the adapter", async () => {
      const response = await upload(withFiles(), [
        new File(["a,b\n1,2\n"], "data.csv", { type: "text/csv" }),
      ]);
      expect(response.status).toBe(200);
      const [message] = sent;
      expect(message?.text).toBe("");
      expect(message?.attachments).toEqual([
        { name: "data.csv", declaredType: "text/csv", declaredSize: 8, ref: { blob: expect.any(String) } },
      ]);
      const attachment = message!.attachments![0]!;
      const body = await chat.attachments.open(attachment, AbortSignal.timeout(1_000));
      const chunks: Uint8Array[] = [];
      for await (const chunk of body.body) chunks.push(chunk);
      expect(Buffer.concat(chunks).toString()).toBe("a,b\n1,2\n");
    });

    it("refuses a file over the limit, too many files, and files when the chat takes none", async () => {
      const console = withFiles();
      const big = new File([new Uint8Array(MAX + 1)], "big.bin");
      const tooLarge = await upload(console, [big], "look");
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.text()).toContain("big.bin is larger than");
      const small = () => new File(["x"], "x.txt");
      expect((await upload(console, [small(), small(), small()])).status).toBe(400);
      expect((await upload(app(), [small()])).status).toBe(400);
      expect(sent).toEqual([]);
    });

    it("serves a kept file behind the token: pictures inline, anything else only as a download", async () => {
      await upload(withFiles(), [
        new File(["<script>alert(1)</script>"], "page.html", { type: "text/html" }),
      ]);
      const blob = String(sent[0]?.attachments?.[0]?.ref.blob);
      expect(parseBlobId(blob)).toBeDefined();
      const console = withFiles();
      expect((await console.request(`/console/files/${blob}?type=text/html`)).status).toBe(401);
      const html = await console.request(`/console/files/${blob}?name=page.html&type=text/html`, {
        headers: auth,
      });
      expect(html.status).toBe(200);
      expect(html.headers.get("content-type")).toBe("application/octet-stream");
      expect(html.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''page.html");
      expect(html.headers.get("x-content-type-options")).toBe("nosniff");
      const png = await console.request(`/console/files/${blob}?name=a.png&type=image/png`, {
        headers: auth,
      });
      expect(png.headers.get("content-type")).toBe("image/png");
      expect(png.headers.get("content-disposition")).toMatch(/^inline;/);
      expect((await console.request("/console/files/../../etc/passwd", { headers: auth })).status).toBe(404);
      expect(
        (await console.request(`/console/files/${"0".repeat(32)}/${"0".repeat(64)}`, { headers: auth }))
          .status,
      ).toBe(404);
    });
  });
});
