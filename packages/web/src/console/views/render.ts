import type { Context } from "hono";
import { layout, type Page } from "./layout.ts";

/** Header the console's script sends to get only the live region of a page, for a live update. */
export const FRAGMENT_HEADER = "x-console-fragment";

/** The whole page, or only its live region when the script asks for a fresh copy of it. */
export async function render(c: Context, page: Page): Promise<Response> {
  c.header("cache-control", "no-store");
  if (c.req.header(FRAGMENT_HEADER)) return c.html(await page.body);
  return c.html(await layout(page));
}
