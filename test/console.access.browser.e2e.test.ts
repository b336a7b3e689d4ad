/**
 * The console's Access page in a real browser (Debian's Chromium, playwright-core): a whole
 * Switchboard process with `access.slack.dm: pairing` against the Slack stand-in. A stranger's
 * direct message gets a code; the page lists it; Approve lets their next message through; Revoke
 * takes it back (their next message gets a new code).
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../packages/core/src/testing/wait.ts";
import { chromiumInstalled, launchChromium } from "./support/console/chromium.ts";
import { CONSOLE_TOKEN, startConsoleStack } from "./support/console/console-stack.ts";
import { ALICE, ALICE_DM, BOT_USER_ID } from "./support/slack/workspace-state.ts";

if (!chromiumInstalled) console.warn("console browser tests skipped: /usr/bin/chromium is not installed");

describe.skipIf(!chromiumInstalled)("the console's Access page in Chromium", () => {
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  let browser: Browser;
  let page: Page;
  const url = (path: string) => `${stack.consoleUrl}${path}`;
  const botSaid = () =>
    stack.slack.state.messages
      .filter((message) => message.channel === ALICE_DM && message.user === BOT_USER_ID)
      .map((message) => message.text);

  beforeAll(async () => {
    stack = await startConsoleStack({ extraYaml: ["access:", "  slack:", "    dm: pairing"].join("\n") });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
    await page.goto(url(`?token=${CONSOLE_TOKEN}`));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("approves a waiting code and revokes it again", { timeout: 60_000 }, async () => {
    await stack.slack.say(ALICE_DM, "hello, who are you?", { user: ALICE });
    const told = await waitFor("the pairing code in the DM", () =>
      botSaid().find((text) => /[A-Z0-9]{4}-[A-Z0-9]{4}/.test(text)),
    );
    const code = /([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(told)?.[1] ?? "";

    await page.goto(url("/access"));
    expect(await page.locator("nav a[aria-current=page]").textContent()).toBe("Access");
    const row = page.locator(`tr[data-code="${code.replace("-", "")}"]`);
    expect(await row.textContent()).toContain(code);
    expect(await row.textContent()).toContain(ALICE);
    await row.getByRole("button", { name: "Approve" }).click();
    await expect
      .poll(() => page.locator("p.notice").textContent())
      .toMatch(/^Approved: .* \(slack\) can talk to the bot now\.$/);
    expect(await page.locator("table.pairing-pending").count()).toBe(0);

    const before = botSaid().length;
    await stack.slack.say(ALICE_DM, "what can you do?", { user: ALICE });
    await waitFor("an answer after approval", () => botSaid().length > before);
    expect(botSaid().at(-1)).not.toMatch(/pairing code/);

    await page.locator(`tr[data-user="${ALICE}"]`).getByRole("button", { name: "Revoke" }).click();
    await expect.poll(() => page.locator("p.notice").textContent()).toMatch(/^Revoked: /);
    const answered = botSaid().length;
    await stack.slack.say(ALICE_DM, "still there?", { user: ALICE });
    const again = await waitFor("a new code after revocation", () => botSaid().slice(answered).at(0));
    expect(again).toMatch(/pairing code/);
    expect(again).not.toContain(code);
  });
});
