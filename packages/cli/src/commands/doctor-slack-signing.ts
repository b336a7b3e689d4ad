import type { LoadedConfig } from "../config/load-config.ts";
import type { CheckResult } from "./doctor-result.ts";

/** How long `doctor --slack-verify` listens: time to press Retry next to the Request URL. */
const WAIT_MS = 5 * 60_000;

/**
 * HTTP mode's signing secret, which Slack proves only by signing a request with it. Without
 * `verify` the line says it was not checked and how to check it; with it, doctor listens where the
 * adapter would (port, host, eventsPath) until Slack's url_verification — sent when someone presses
 * Retry next to the Request URL — arrives, and checks its signature (the adapter's own check).
 */
export async function checkSlackSigningSecret(
  loaded: LoadedConfig,
  options: { readonly verify: boolean; readonly signal: AbortSignal; readonly say: (line: string) => void },
): Promise<CheckResult[]> {
  const slack = loaded.config.slack;
  const http = slack !== undefined && (slack.mode ?? (slack.appToken ? "socket" : "http")) === "http";
  if (!http || !slack?.signingSecret) return [];
  const name = "slack signing secret";
  if (!options.verify)
    return [
      {
        name,
        status: "skipped",
        detail:
          "not checked: Slack proves it only by a signed request (`switchboard doctor --slack-verify` waits for one, with Switchboard stopped)",
      },
    ];
  const { awaitSignedRequest, RequestUrlListenError } = await import("@switchboard/slack/setup");
  options.say(
    `waiting up to ${WAIT_MS / 60_000} minutes on port ${slack.port} at ${slack.eventsPath} for Slack's signed request: press Retry next to the Request URL in the app's Event Subscriptions (Ctrl-C stops)`,
  );
  try {
    const verdict = await awaitSignedRequest({
      signingSecret: slack.signingSecret,
      port: slack.port,
      host: slack.host,
      path: slack.eventsPath,
      timeoutMs: WAIT_MS,
      signal: options.signal,
    });
    switch (verdict.outcome) {
      case "matches":
        return [
          { name, status: "ok", detail: "the signing secret matches: Slack's request was signed with it" },
        ];
      case "wrong-secret":
        return [
          {
            name,
            status: "problem",
            detail: "the request Slack sent is not signed with this secret",
            fix: "copy Basic Information → App Credentials → Signing Secret again into SWITCHBOARD_SLACK_SIGNING_SECRET",
          },
        ];
      case "clock":
        return [
          {
            name,
            status: "warning",
            detail: `not checked: Slack's request is signed, but its time is off (${verdict.reason})`,
            fix: "set this machine's clock (Slack allows five minutes)",
          },
        ];
      default:
        return [{ name, status: "warning", detail: "not checked: no request from Slack arrived" }];
    }
  } catch (error) {
    if (!(error instanceof RequestUrlListenError)) throw error;
    return [
      { name, status: "warning", detail: `not checked: ${error.message}`, fix: "stop Switchboard first" },
    ];
  }
}
