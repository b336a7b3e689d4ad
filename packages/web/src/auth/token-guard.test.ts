import { openStore } from "@switchboard/core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { resolveConsoleToken, sameSecret, sessionProof } from "./console-token.ts";
import { SESSION_COOKIE, tokenGuard } from "./token-guard.ts";

const TOKEN = "a-console-token-for-tests";

function guarded() {
  const app = new Hono();
  app.use("/console/*", tokenGuard(TOKEN, { secureCookie: false }));
  app.get("/console/page", (c) => c.text("inside"));
  app.post("/console/page", (c) => c.text("posted"));
  return app;
}

describe("the console token", () => {
  it.each([
    [TOKEN, TOKEN, true],
    [`${TOKEN}x`, TOKEN, false],
    [TOKEN.slice(0, -1), TOKEN, false],
    ["", TOKEN, false],
  ])("sameSecret(%j, %j) is %s", (given, expected, same) => {
    expect(sameSecret(given, expected)).toBe(same);
  });

  it("answers 401 without the token, with a wrong one, and for a token in the query of a POST", async () => {
    const app = guarded();
    expect((await app.request("/console/page")).status).toBe(401);
    expect((await app.request("/console/page?token=wrong-token-value")).status).toBe(401);
    expect((await app.request("/console/page", { headers: { authorization: "Bearer nope" } })).status).toBe(
      401,
    );
    expect((await app.request(`/console/page?token=${TOKEN}`, { method: "POST" })).status).toBe(401);
    const forged = await app.request("/console/page", { headers: { cookie: `${SESSION_COOKIE}=${TOKEN}` } });
    expect(forged.status).toBe(401);
  });

  it("trades ?token= for a session cookie and a redirect that drops the token from the address", async () => {
    const app = guarded();
    const first = await app.request(`/console/page?token=${TOKEN}&thread=main`);
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/console/page?thread=main");
    const cookie = first.headers.get("set-cookie") ?? "";
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(";")[0] ?? "";
    const inside = await app.request("/console/page", { headers: { cookie: session } });
    expect(await inside.text()).toBe("inside");
    expect(session).toBe(`${SESSION_COOKIE}=${sessionProof(TOKEN)}`);
    const bearer = await app.request("/console/page", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(await bearer.text()).toBe("posted");
  });

  it("uses the configured token, else generates one once and keeps it in the store", async () => {
    const store = await openStore("memory://");
    try {
      expect(await resolveConsoleToken(store, "configured-token-123")).toEqual({
        token: "configured-token-123",
        source: "configured",
      });
      const generated = await resolveConsoleToken(store, undefined);
      expect(generated.source).toBe("generated");
      expect(generated.token.length).toBeGreaterThanOrEqual(32);
      expect(await resolveConsoleToken(store, undefined)).toEqual({
        token: generated.token,
        source: "stored",
      });
    } finally {
      await store.close();
    }
  });
});
