import type { ModelSpec } from "./spec.ts";

/**
 * One line for start-up logs and `/status`. Never contains an API key, and a base URL is shown
 * without credentials or query string, since operators paste these lines into issues and chats.
 */
export function describeModel(spec: ModelSpec): string {
  if (spec.provider === "offline") {
    return "offline (built-in, no LLM) — set model: in switchboard.yaml to use a real one";
  }
  const name = `${spec.provider}:${spec.model}`;
  return spec.baseUrl ? `${name} at ${displayUrl(spec.baseUrl)}` : name;
}

function displayUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
  } catch {
    // Specs are validated before they get here; an unparsable URL still must not leak credentials.
    return "(invalid URL)";
  }
}
