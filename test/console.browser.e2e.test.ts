/**
 * The operator console in a real browser (Debian's Chromium, driven by playwright-core): a whole
 * Switchboard process with the web chat and Slack (the local stand-in), a scripted team whose
 * billing agent needs approval to refund. Screenshots of each page land in test/artefacts/console/.
 */
import { waitFor } from "@switchboard/core/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PNG_1X1 } from "../packages/core/src/attachments/testing/sample-files.ts";
import { chromiumInstalled, launchChromium, screenshot } from "./support/console/chromium.ts";
import { CONSOLE_TOKEN, startConsoleStack } from "./support/console/console-stack.ts";
import { STORY } from "./support/console/scripted-team.ts";
import { BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

if (!chromiumInstalled) console.warn("console browser tests skipped: /usr/bin/chromium is not installed");

describe.skipIf(!chromiumInstalled)("the operator console in Chromium", () => {
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  let browser: Browser;
  let page: Page;
  const url = (path: string) => `${stack.consoleUrl}${path}`;

  beforeAll(async () => {
    // Text answers stream word by word, as a provider's would.
    stack = await startConsoleStack({ paceMs: 60 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("answers 401 without the token, and never shows the token in a page or the address", async () => {
    expect((await fetch(url("/conversations"))).status).toBe(401);
    const refused = await page.goto(url("/conversations"));
    expect(refused?.status()).toBe(401);
    expect((await fetch(url("/events"))).status).toBe(401);

    const opened = await page.goto(url(`?token=${CONSOLE_TOKEN}`));
    expect(opened?.status()).toBe(200);
    expect(page.url()).toBe(url("/conversations"));
    expect(await page.content()).not.toContain(CONSOLE_TOKEN);
    await expect.poll(() => page.locator("#live-state").textContent()).toBe("live");
  });

  it("lists a Slack conversation as it happens, without reloading", async () => {
    const question = await stack.slack.say(GENERAL, `<@${BOT_USER_ID}> hello from slack`);
    const row = page.locator("table.conversations tbody tr", { hasText: "slack" });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.textContent()).toContain("supervisor");
    // The channel's name from Slack (conversations.info), not its id.
    await expect.poll(() => row.locator("td a").textContent()).toMatch(/^#general · thread \d+\.\d+$/);
    await page.selectOption("select[name=platform]", "slack");
    await page.click("form.filters button");
    await expect.poll(() => page.locator("table.conversations tbody tr").count()).toBe(1);
    // A refresh while someone types in the search box keeps what they typed (and their place).
    await page.fill("input[name=q]", "no such words anywhere");
    const refreshedAt = await page.locator("#live").getAttribute("data-refreshed-at");
    await stack.slack.say(GENERAL, `<@${BOT_USER_ID}> one more thing`, { threadTs: question.ts });
    await expect
      .poll(() => page.locator("#live").getAttribute("data-refreshed-at"), { timeout: 10_000 })
      .not.toBe(refreshedAt);
    expect(await page.inputValue("input[name=q]")).toBe("no such words anywhere");
    // Evaluated in the page (a string: the test's own TypeScript has no DOM types).
    expect(await page.evaluate("document.activeElement?.getAttribute('name')")).toBe("q");
    await page.click("form.filters button");
    // Polled: the answer may still be streaming, and every change of it refreshes the list.
    await expect
      .poll(() => page.locator("table.conversations tbody").textContent())
      .toContain("match these filters");
  });

  it("chats through the web adapter: the answer and the agent that gave it appear live", async () => {
    await page.goto(url("/chat"));
    await page.fill("#chat-text", "hello team");
    await page.keyboard.press("Enter");
    const answer = page.locator(".message.bot", { hasText: "Hello from the supervisor" });
    await answer.waitFor({ timeout: 10_000 });
    expect(await answer.locator(".agent").textContent()).toBe("supervisor");

    await page.fill("#chat-text", "I was charged twice, please refund me");
    await page.click("form.composer button");
    const prompt = page.locator(".message.bot", { hasText: "wants to run" });
    await prompt.waitFor({ timeout: 10_000 });
    expect(await prompt.locator(".agent").textContent()).toBe("billing");
    expect(await prompt.textContent()).toContain("refund");
    await screenshot(page, "chat");
  });

  it("shows the conversation: transcript, run timeline with the model calls and the handoff, memory", async () => {
    await page.click("text=Inspect this conversation");
    await page.locator("h2", { hasText: "Run timeline" }).waitFor();
    const transcript = page.locator("ol.transcript");
    expect(await transcript.textContent()).toContain("I was charged twice");
    const timeline = page.locator("ol.timeline");
    expect(await timeline.textContent()).toContain("user message");
    expect(await timeline.textContent()).toContain("interrupted");
    await expect.poll(() => timeline.locator(".step.handoff").first().textContent()).toContain("billing");
    expect(await timeline.locator(".step.model").count()).toBeGreaterThanOrEqual(3);
    expect(await timeline.locator(".step.model").first().textContent()).toMatch(/\d+ in \/ \d+ out tokens/);
    expect(await page.locator("h2", { hasText: "Memory of this thread" }).count()).toBe(1);
  });

  it("approves the waiting refund from the Requests page; the follow-up answer lands in the thread", async () => {
    await page.goto(url("/requests"));
    const waiting = page.locator("li.request", { hasText: "awaiting approval" });
    await waiting.waitFor();
    expect(await waiting.textContent()).toContain("refund");
    await screenshot(page, "requests");
    await waiting.locator("button", { hasText: "Approve" }).click();
    await page.locator(".notice", { hasText: "Approved" }).waitFor();

    // The approved run answers in the background (a model call and the tool): beside other test
    // files it may take longer than a page load, so the chat is opened until the answer is there.
    await expect
      .poll(
        async () => {
          await page.goto(url("/chat"));
          return page.locator(".message.bot", { hasText: "Refund done" }).count();
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBeGreaterThan(0);
    expect(stack.refunds.calls).toEqual([{ amount: 42 }]);
    await stack.app.idle();
    await page.goto(url("/requests"));
    expect(await page.locator("li.request").count()).toBe(0);

    // The refund ran in the run the approval started: its tool call is on that run's timeline.
    await page.goto(url("/chat"));
    await page.click("text=Inspect this conversation");
    const approvalRun = page.locator("ol.timeline > li", { hasText: "approval" }).first();
    await approvalRun.waitFor();
    expect(await approvalRun.textContent()).toContain("approved by console operator (console)");
    await expect.poll(() => approvalRun.locator(".step.tool", { hasText: "refund" }).count()).toBe(1);
    expect(await page.locator("ol.transcript").textContent()).toContain("Refund done");
    await screenshot(page, "conversation");
  });

  it("charts the usage of the day", async () => {
    await page.goto(url("/usage"));
    await expect.poll(() => page.locator("figure.chart rect.bar").count()).toBeGreaterThan(0);
    expect(await page.locator("section", { hasText: "Per agent" }).textContent()).toContain("billing");
    await screenshot(page, "usage");
  });

  it("shows a stopped platform on the health page", async () => {
    await page.goto(url("/health"));
    const slackRow = page.locator("tr[data-platform=slack]");
    expect(await slackRow.textContent()).toContain("connected");
    await stack.stopSlack();
    await waitFor(
      "the health page to report Slack unreachable",
      async () => {
        await page.goto(url("/health"));
        return (await slackRow.textContent())?.includes("UNREACHABLE");
      },
      20_000,
    );
    expect(await page.locator("tr[data-platform=web]").textContent()).toContain("connected");
    await screenshot(page, "health");
  });

  it("lists both conversations with their agents and request counts at the end", async () => {
    await page.goto(url("/conversations"));
    const rows = page.locator("table.conversations tbody tr");
    expect(await rows.count()).toBe(2);
    expect(await rows.filter({ hasText: "web" }).textContent()).toContain("billing");
    await screenshot(page, "conversations");
  });

  it("lists a background task live and pauses, steers and resumes it from the Tasks page", {
    timeout: 90_000,
  }, async () => {
    await page.goto(url("/chat?thread=research"));
    await page.fill("#chat-text", "research flights to Lisbon in the background");
    await page.keyboard.press("Enter");
    const started = page.locator(".message.bot", { hasText: "Started task" });
    await started.waitFor({ timeout: 10_000 });
    const taskId = /T-[A-Z0-9]{6}/.exec((await started.textContent()) ?? "")?.[0] ?? "";
    expect(taskId).not.toBe("");

    await page.goto(url("/tasks"));
    const row = page.locator(`li.task[data-task-id="${taskId}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await row.textContent()).toContain("Flights to Lisbon");
    await page.click("nav.filters a:text-is('running')");
    await expect.poll(() => page.locator("li.task").count(), { timeout: 10_000 }).toBe(1);

    await row.locator(".run-head a").click();
    await page.click("button[value=pause]");
    await expect.poll(() => page.locator("p.notice").textContent()).toMatch(/^(Pausing|Paused) task/);
    // The running step hears the pause at its lease's next heartbeat; the page refreshes by itself.
    await expect.poll(() => page.locator("dd.status-paused").count(), { timeout: 30_000 }).toBe(1);
    await page.fill("#guidance", "only direct flights");
    await page.click("form.steer button");
    await expect.poll(() => page.locator("p.notice").textContent()).toContain("from its next step");
    await page.click("button[value=resume]");
    await expect.poll(() => page.locator("p.notice").textContent()).toContain(`Resumed task ${taskId}`);
    await expect.poll(() => page.locator("dd.status-completed").count(), { timeout: 30_000 }).toBe(1);
    expect(await page.locator("pre.result").textContent()).toContain("only direct flights");
    expect(await page.locator("ol.task-steps p.guidance").first().textContent()).toContain(
      "only direct flights",
    );
    await screenshot(page, "task");
    // Its result came home to the chat thread, once.
    await page.goto(url("/chat?thread=research"));
    await expect.poll(() => page.locator(".message.bot", { hasText: "is done" }).count()).toBe(1);
  });

  it("lists a thread a person took over on the Requests page, and hands it back", async () => {
    await page.goto(url("/chat?thread=person"));
    await page.fill("#chat-text", "/human the customer wants a manager");
    await page.keyboard.press("Enter");
    await page
      .locator(".message.bot", { hasText: "A person can take over now" })
      .waitFor({ timeout: 10_000 });
    await page.goto(url("/requests"));
    const handoff = page.locator("section.handoffs li.handoff");
    await expect.poll(() => handoff.count()).toBe(1);
    expect(await handoff.textContent()).toContain("the customer wants a manager");
    await handoff.locator("button").click();
    await expect
      .poll(() => page.locator("p.notice").textContent())
      .toBe("Back to the bot: supervisor answers here again.");
    expect(await page.locator("section.handoffs li.handoff").count()).toBe(0);
  });

  it("shows what an agent kept on the Learnings page, and deletes it", async () => {
    await page.goto(url("/chat?thread=notes"));
    await page.fill("#chat-text", "remember that I take green tea");
    await page.keyboard.press("Enter");
    await page.locator(".message.bot", { hasText: "Noted. Kept as [" }).waitFor({ timeout: 10_000 });
    await page.goto(url("/learnings"));
    const learning = page.locator("li.learning", { hasText: "I take green tea" });
    await expect.poll(() => learning.count()).toBe(1);
    expect(await learning.textContent()).toContain("user");
    await screenshot(page, "learnings");
    await learning.locator("button").click();
    await expect.poll(() => page.locator("p.notice").textContent()).toMatch(/^Deleted learning \w+\.$/);
    expect(await page.locator("li.learning", { hasText: "I take green tea" }).count()).toBe(0);
  });

  it("fits a phone screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(url("/chat"));
    // Evaluated in the page (a string: the test's own TypeScript has no DOM types).
    const overflow = Number(await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"));
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, "chat-phone");
  });

  it("shows an answer in the chat as it is written, then exactly as it ends", async () => {
    await page.setViewportSize({ width: 1200, height: 800 });
    await page.goto(url("/chat?thread=story"));
    await page.fill("#chat-text", "tell me a story");
    await page.keyboard.press("Enter");
    const answer = page.locator(".message.bot", { hasText: "Once upon a time" });
    await answer.waitFor({ timeout: 10_000 });
    // Seen while the model is still writing: the first words, not yet the last.
    const early = (await answer.textContent()) ?? "";
    expect(early).toContain("Once upon a time");
    expect(early).not.toContain(`${STORY}.`);
    const done = page.locator(".message.bot", { hasText: `${STORY}.` });
    await done.waitFor({ timeout: 10_000 });
    expect(await page.locator(".message.bot").count()).toBe(1);
    expect(await done.textContent()).not.toContain("(stopped)");
  });

  it("uploads an image in the chat: the model sees it, and the transcript shows it as a thumbnail behind the token", async () => {
    await page.goto(url("/chat?thread=pictures"));
    await page.fill("#chat-text", "what is on this screenshot?");
    await page.setInputFiles("#chat-files", { name: "error.png", mimeType: "image/png", buffer: PNG_1X1 });
    await page.click("form.composer button");
    // The answer streams: waited for until it names the picture the model was shown.
    const answer = page.locator(".message.bot", {
      hasText: "I can see 1 image(s). [Image attached: error.png · image/png · 70 bytes",
    });
    await answer.waitFor({ timeout: 10_000 });
    const thumbnail = page.locator(".message.user .files img[alt='error.png']");
    await thumbnail.waitFor();
    // Loaded by the browser through the console's cookie; the bytes are the picture sent.
    // Evaluated in the page (a string: the test's own TypeScript has no DOM types).
    await expect
      .poll(() =>
        page.evaluate(`document.querySelector(".message.user .files img[alt='error.png']").naturalWidth`),
      )
      .toBe(1);
    const src = (await thumbnail.getAttribute("src")) ?? "";
    expect(src).toMatch(/^\/console\/files\/[0-9a-f]{32}\/[0-9a-f]{64}\?/);
    const origin = new URL(stack.consoleUrl).origin;
    expect((await fetch(`${origin}${src}`)).status).toBe(401);
    const served = await fetch(`${origin}${src}`, { headers: { authorization: `Bearer ${CONSOLE_TOKEN}` } });
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG_1X1);
    await screenshot(page, "chat-image");
  });
});
