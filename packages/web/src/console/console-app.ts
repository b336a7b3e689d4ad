import { readFileSync } from "node:fs";
import type { RequestListener } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import { tokenGuard } from "../auth/token-guard.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import { accessRoutes } from "./routes/access.ts";
import { chatRoutes } from "./routes/chat.ts";
import { conversationPageRoutes } from "./routes/conversation.ts";
import { conversationRoutes } from "./routes/conversations.ts";
import { eventRoutes } from "./routes/events.ts";
import { fileRoutes } from "./routes/files.ts";
import { healthRoutes } from "./routes/health.ts";
import { requestRoutes } from "./routes/requests.ts";
import { scheduleRoutes } from "./routes/schedules.ts";
import { taskRoutes } from "./routes/tasks.ts";
import { usageRoutes } from "./routes/usage.ts";

const ASSETS: Readonly<Record<string, { type: string; body: string }>> = {
  "console.js": { type: "text/javascript; charset=utf-8", body: readAsset("console.js") },
  "console.css": { type: "text/css; charset=utf-8", body: readAsset("console.css") },
};

function readAsset(name: string): string {
  return readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8");
}

/** The operator console: every route under `/console`, all behind the token. */
export function createConsoleApp(deps: ConsoleDeps): Hono {
  const app = new Hono();
  const secureCookie = deps.secureCookie ?? false;
  app.use(
    "/console/*",
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
      },
      referrerPolicy: "no-referrer",
    }),
  );
  app.use("/console", tokenGuard(deps.token, { secureCookie }));
  app.use("/console/*", tokenGuard(deps.token, { secureCookie }));
  app.get("/console", (c) => c.redirect("/console/conversations", 303));
  app.get("/console/assets/:name", (c) => {
    const asset = ASSETS[c.req.param("name")];
    if (!asset) return c.text("404: no such asset", 404);
    return c.body(asset.body, 200, { "content-type": asset.type, "cache-control": "no-cache" });
  });
  conversationRoutes(app, deps);
  conversationPageRoutes(app, deps);
  requestRoutes(app, deps);
  scheduleRoutes(app, deps);
  accessRoutes(app, deps);
  taskRoutes(app, deps);
  usageRoutes(app, deps);
  healthRoutes(app, deps);
  chatRoutes(app, deps, { secureCookie });
  fileRoutes(app, deps);
  eventRoutes(app, deps);
  app.onError((error, c) => {
    deps.onError?.(error, c.req.path);
    return c.text("500: the console could not answer; the log has the detail", 500);
  });
  return app;
}

/** The console as a Node request listener, for the built-in HTTP server. */
export function consoleRequestListener(app: Hono): RequestListener {
  return getRequestListener(app.fetch);
}
