import type { MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { sameSecret, sessionProof } from "./console-token.ts";

export const SESSION_COOKIE = "sb_console";

/**
 * Lets a request in when it proves it knows the token: `Authorization: Bearer <token>`, the
 * session cookie, or `?token=` once (answered with the cookie and a redirect to the same page
 * without the token, so it leaves the address bar and the history). Anything else: 401.
 */
export function tokenGuard(token: string, options: { secureCookie: boolean }): MiddlewareHandler {
  const proof = sessionProof(token);
  return async (c, next) => {
    const bearer = /^Bearer (.+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (bearer !== undefined && sameSecret(bearer, token)) return next();
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie !== undefined && sameSecret(cookie, proof)) return next();
    const url = new URL(c.req.url);
    const query = url.searchParams.get("token");
    if (query !== null && sameSecret(query, token) && c.req.method === "GET") {
      setCookie(c, SESSION_COOKIE, proof, {
        httpOnly: true,
        sameSite: "Strict",
        path: "/console",
        secure: options.secureCookie,
      });
      url.searchParams.delete("token");
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    c.header("www-authenticate", 'Bearer realm="switchboard console"');
    return c.text(
      "401: this console needs its token. Open the address switchboard start printed, or send Authorization: Bearer <token>.",
      401,
    );
  };
}
