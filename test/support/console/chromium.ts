import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

/** Debian's chromium package; the tests never download a browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";
export const chromiumInstalled = existsSync(CHROMIUM_PATH);

/** Screenshots of each page, kept as test artefacts (git-ignored). */
export const ARTEFACTS_DIR = join(import.meta.dirname, "../../artefacts/console");

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Containers and CI run as root, where Chromium's sandbox cannot start.
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
}

/** The documentation's pictures (docs/console/, shown in docs/features/operator-console.md); refreshed only on request (`SWITCHBOARD_DOCS_SCREENSHOTS=1`), never by CI. */
const DOCS_DIR = join(import.meta.dirname, "../../../docs/console");
const updateDocs = process.env.SWITCHBOARD_DOCS_SCREENSHOTS === "1";

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTEFACTS_DIR, { recursive: true });
  const path = join(ARTEFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  if (updateDocs) {
    await mkdir(DOCS_DIR, { recursive: true });
    // The visible part only, at the page's width: small enough for a documentation page.
    await page.screenshot({ path: join(DOCS_DIR, `${name}.png`) });
  }
  return path;
}
