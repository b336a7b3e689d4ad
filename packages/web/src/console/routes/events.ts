import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { LiveEvent } from "../../activity/live-feed.ts";
import type { ConsoleDeps } from "../console-deps.ts";

/** Keeps proxies from closing a quiet stream, and notices a closed tab within this long. */
const KEEP_ALIVE_MS = 15_000;

/**
 * `GET /console/events`: server-sent change notices. Each page listens and fetches its own live
 * region again when a notice concerns it; nothing is polled.
 */
export function eventRoutes(app: Hono, deps: ConsoleDeps): void {
  app.get("/console/events", (c) =>
    streamSSE(c, async (stream) => {
      const queue: LiveEvent[] = [];
      let wake: (() => void) | undefined;
      const unsubscribe = deps.feed.subscribe((event) => {
        queue.push(event);
        wake?.();
      });
      stream.onAbort(() => {
        unsubscribe();
        wake?.();
      });
      await stream.writeSSE({ event: "ready", data: "{}" });
      while (!stream.aborted && !stream.closed) {
        const event = queue.shift();
        if (event) {
          await stream.writeSSE({ event: "change", data: JSON.stringify(event) });
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, KEEP_ALIVE_MS);
        });
        wake = undefined;
        if (queue.length === 0 && !stream.aborted) await stream.write(": keep-alive\n\n");
      }
      unsubscribe();
    }),
  );
}
