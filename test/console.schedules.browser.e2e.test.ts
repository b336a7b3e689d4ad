/**
 * The console's Schedules page in a real browser (Debian's Chromium, playwright-core): a whole
 * Switchboard process with two schedules declared in switchboard.yaml for Slack's #general (the
 * stand-in) — one due seconds after the start, one every morning. The first fires while the page
 * is open: its run appears, linked to its place in the conversation's timeline; the second is
 * paused, resumed and cancelled from the page.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumInstalled, launchChromium, screenshot } from "./support/console/chromium.ts";
import { CONSOLE_TOKEN, startConsoleStack } from "./support/console/console-stack.ts";
import { localDateTime } from "./support/crash/schedule-script.ts";
import { BOT_ID, GENERAL, TEAM_ID } from "./support/slack/workspace-state.ts";

if (!chromiumInstalled) console.warn("console browser tests skipped: /usr/bin/chromium is not installed");

describe.skipIf(!chromiumInstalled)("the console's Schedules page in Chromium", () => {
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  let browser: Browser;
  let page: Page;
  const url = (path: string) => `${stack.consoleUrl}${path}`;
  const row = (id: string) => page.locator(`tr[data-schedule-id="${id}"]`);

  beforeAll(async () => {
    const soon = localDateTime(Date.now() + 8_000, "Europe/Berlin");
    stack = await startConsoleStack({
      extraYaml: [
        "schedules:",
        "  declared:",
        "    - name: soon",
        `      at: "${soon}"`,
        "      timeZone: Europe/Berlin",
        `      conversation: slack:${TEAM_ID}:${GENERAL}`,
        "      title: Say hello soon",
        "      instructions: Say hello to the channel.",
        "    - name: morning-check",
        '      cron: "0 9 * * 1-5"',
        "      timeZone: America/New_York",
        `      conversation: slack:${TEAM_ID}:${GENERAL}`,
        "      title: Morning check",
        "      instructions: Ask how everyone is doing.",
      ].join("\n"),
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
    await page.goto(url(`?token=${CONSOLE_TOKEN}`));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("lists the schedules with their rhythm, next run in their zone, status and place", async () => {
    await page.goto(url("/schedules"));
    expect(await page.locator("nav a[aria-current=page]").textContent()).toBe("Schedules");
    const morning = row("morning-check");
    expect(await morning.textContent()).toContain("Morning check");
    expect(await morning.textContent()).toContain("at 09:00, Monday through Friday (America/New_York)");
    expect(await morning.locator("td").nth(2).textContent()).toMatch(
      /\w{3} \d+ \w{3} \d{4}, 09:00 \(America\/New_York\)/,
    );
    expect(await morning.textContent()).toContain("declared in switchboard.yaml");
    expect(await morning.locator("td a").first().textContent()).toMatch(/^slack · #general/);
  });

  it("shows a fire as it happens, with a link to its run in the conversation's timeline", {
    timeout: 60_000,
  }, async () => {
    const soon = row("soon");
    // The page refreshes itself when the fire's run changes requests.
    const began = Date.now();
    await expect.poll(() => soon.locator(".badge").textContent(), { timeout: 45_000 }).toBe("done");
    console.log(`done after ${Date.now() - began} ms`);
    await expect.poll(() => soon.locator("details").count(), { timeout: 10_000 }).toBe(1);
    await soon.locator("summary").click();
    await expect
      .poll(() => soon.locator("ol.fires li").first().textContent(), { timeout: 10_000 })
      .toContain("posted");
    const posted = stack.slack.state.messages.filter(
      (message) =>
        message.channel === GENERAL && message.bot_id === BOT_ID && message.thread_ts === undefined,
    );
    expect(posted.map((message) => message.text).join("\n")).toContain("Hello from the supervisor");
    await soon.locator("summary").click();
    await screenshot(page, "schedules");
    const href = await soon.locator("a", { hasText: "its run" }).getAttribute("href");
    await page.goto(url(href?.replace(/^\/console/, "") ?? ""));
    const run = page.locator("ol.timeline > li", { hasText: "scheduled run" }).first();
    await run.waitFor();
    expect(page.url()).toMatch(/#run-run-/);
    expect(await run.getAttribute("id")).toBe(new URL(page.url()).hash.slice(1));
    expect(await run.textContent()).toContain("completed");
    await expect.poll(() => run.locator(".step.model").count()).toBeGreaterThan(0);
  });

  it("pauses, resumes and cancels a schedule as an admin", async () => {
    await page.goto(url("/schedules"));
    const morning = row("morning-check");
    await morning.locator("button", { hasText: "Pause" }).click();
    await page.locator(".notice", { hasText: "Paused schedule morning-check (Morning check)." }).waitFor();
    expect(await row("morning-check").locator(".badge").textContent()).toBe("paused");
    expect(await row("morning-check").textContent()).toContain("by console operator");
    await row("morning-check").locator("button", { hasText: "Resume" }).click();
    await page.locator(".notice", { hasText: "Resumed schedule morning-check" }).waitFor();
    expect(await row("morning-check").locator(".badge").textContent()).toBe("active");
    await row("morning-check").locator("button", { hasText: "Cancel" }).click();
    await page.locator(".notice", { hasText: "Cancelled schedule morning-check" }).waitFor();
    expect(await row("morning-check").locator(".badge").textContent()).toBe("cancelled");
    expect(await row("morning-check").locator("button").count()).toBe(0);
  });
});
