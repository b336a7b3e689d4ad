import { awaitSignedRequest, RequestUrlListenError } from "@switchboard/slack/setup";
import { type Asker, SetupStopped } from "./asker.ts";

/** HTTP mode: the public Request URL, and where its requests arrive on this machine. */
export interface HttpEndpoint {
  readonly requestUrl: string;
  readonly port: number;
  /** The Request URL's path: the adapter's `eventsPath`. */
  readonly path: string;
}

/** How long setup listens for Slack's request: time to open the app settings and paste the URL. */
export const REQUEST_WAIT_MS = 5 * 60_000;

/** The endpoint, or what is wrong with the answers. */
export function httpEndpoint(requestUrl: string, port: string): HttpEndpoint | string {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return `the Request URL is not a URL (${requestUrl}): give the full https://… address`;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return `the Request URL must be an https:// address (got ${url.protocol})`;
  const number = Number(port);
  if (!/^\d{1,5}$/.test(port) || number < 1 || number > 65_535)
    return `the port is a number from 1 to 65535 (got ${port})`;
  return { requestUrl: url.toString(), port: number, path: url.pathname };
}

/**
 * The signing secret checked the only way Slack allows: Slack signs the url_verification request
 * it sends when the Request URL is entered in the app's settings, with the app's secret. Setup
 * listens where that request will arrive, answers its challenge when the signature matches, and
 * says plainly when it does not, or when the check was skipped or not reached. Returns the secret
 * to keep (typed again after a mismatch).
 */
export async function checkSigningSecret(
  asker: Asker,
  endpoint: HttpEndpoint,
  typed: string,
): Promise<string> {
  let secret = typed;
  const minutes = REQUEST_WAIT_MS / 60_000;
  asker.show(
    "Check the signing secret",
    [
      `Switchboard now listens on port ${endpoint.port} at ${endpoint.path} for ${minutes} minutes.`,
      "In the app settings, open Event Subscriptions and paste this Request URL (or press Retry next to it):",
      endpoint.requestUrl,
      "Slack sends a signed request to it; its signature shows whether the secret is this app's.",
    ].join("\n"),
  );
  for (;;) {
    let verdict: Awaited<ReturnType<typeof awaitSignedRequest>> | undefined;
    try {
      verdict = await asker.waitOrSkip("slack.verify", "Waiting for Slack's signed request…", (signal) =>
        awaitSignedRequest({
          signingSecret: secret,
          port: endpoint.port,
          host: "0.0.0.0",
          path: endpoint.path,
          timeoutMs: REQUEST_WAIT_MS,
          signal,
        }),
      );
    } catch (error) {
      if (!(error instanceof RequestUrlListenError)) throw error;
      asker.warn(`Slack: the signing secret was NOT checked: ${error.message}`);
      return secret;
    }
    if (verdict === undefined || verdict.outcome === "stopped") {
      asker.warn(
        "Slack: skipped — the signing secret was NOT checked; Slack checks it when you save the Request URL with Switchboard running (a wrong secret shows as `signature mismatch` in its log)",
      );
      return secret;
    }
    switch (verdict.outcome) {
      case "matches":
        asker.ok(
          verdict.urlVerification
            ? "Slack: the signing secret matches — Slack's url_verification request was signed with it, and the Request URL is verified"
            : "Slack: the signing secret matches — Slack's request was signed with it",
        );
        return secret;
      case "timed-out":
        asker.warn(
          `Slack: no request from Slack within ${minutes} minutes — the signing secret was NOT checked (is the Request URL forwarded to port ${endpoint.port}?)`,
        );
        return secret;
      case "clock":
        asker.warn(
          `Slack: the request was signed, but its time is off (${verdict.reason}): set this machine's clock (Slack allows five minutes); the signing secret was NOT checked`,
        );
        return secret;
      case "wrong-secret":
        asker.problem(
          "Slack: the request Slack sent is not signed with this secret: copy Basic Information → App Credentials → Signing Secret again",
        );
        if (
          !asker.interactive ||
          !(await asker.confirm("retry.signing", "Type the signing secret again?", true))
        )
          throw new SetupStopped("the signing secret does not match the app's; nothing was written");
        secret = await asker.secret("SWITCHBOARD_SLACK_SIGNING_SECRET", "Signing Secret");
        asker.show(
          "Check the signing secret",
          "Now press Retry next to the Request URL in Event Subscriptions (Slack sends its request again).",
        );
    }
  }
}
