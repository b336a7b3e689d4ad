import { z } from "zod";

export const JSON_TYPE = "application/json";
export const FORM_TYPE = "application/x-www-form-urlencoded";

export type ShapeVerdict =
  | { readonly ok: true; readonly contentType: typeof FORM_TYPE }
  /** An Events API body, parsed once here (checked to be an object with a `type`). */
  | { readonly ok: true; readonly contentType: typeof JSON_TYPE; readonly body: Record<string, unknown> }
  | { readonly ok: false; readonly status: 400 | 415; readonly reason: string };

/** The Events API: always a JSON object with a `type`; an event callback carries an event object. */
const eventsBody = z.union([
  z.looseObject({ type: z.literal("event_callback"), event: z.looseObject({ type: z.string() }) }),
  z.looseObject({ type: z.string().refine((type) => type !== "event_callback") }),
]);

/** Slash commands: a form naming the command. */
const commandForm = z.looseObject({ command: z.string().min(1) });

/** Interactivity (buttons, shortcuts): a form whose `payload` is a JSON object with a `type`. */
const interactionPayload = z.looseObject({ type: z.string() });

function parsesAsJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * What Slack sends, and only that: JSON for events, a form for commands and interactions. Anything
 * else — another content type, JSON that is not an object (`null`), a form whose payload is not an
 * object — is refused here, before Bolt reads fields of it.
 */
export function checkRequestShape(contentTypeHeader: string | undefined, rawBody: string): ShapeVerdict {
  const type = mediaType(contentTypeHeader);
  if (type === JSON_TYPE) {
    const parsed = parsesAsJson(rawBody);
    if (!parsed.ok) return { ok: false, status: 400, reason: "malformed JSON" };
    const body = eventsBody.safeParse(parsed.value);
    if (!body.success) return { ok: false, status: 400, reason: "JSON is not a Slack event" };
    return { ok: true, contentType: JSON_TYPE, body: parsed.value as Record<string, unknown> };
  }
  if (type === FORM_TYPE) {
    const form = Object.fromEntries(new URLSearchParams(rawBody));
    if (form.ssl_check === "1") return { ok: true, contentType: FORM_TYPE };
    if (typeof form.payload === "string") {
      const parsed = parsesAsJson(form.payload);
      if (!parsed.ok || !interactionPayload.safeParse(parsed.value).success)
        return { ok: false, status: 400, reason: "form payload is not a Slack interaction" };
      return { ok: true, contentType: FORM_TYPE };
    }
    if (!commandForm.safeParse(form).success)
      return { ok: false, status: 400, reason: "form is not a Slack command" };
    return { ok: true, contentType: FORM_TYPE };
  }
  return { ok: false, status: 415, reason: `content type ${type === "" ? "missing" : type}` };
}

/** Socket Mode payloads arrive parsed; the same shapes as over HTTP are required. */
export function isSlackPayload(envelopeType: string, body: unknown): body is Record<string, unknown> {
  if (envelopeType === "events_api") return eventsBody.safeParse(body).success;
  if (envelopeType === "slash_commands") return commandForm.safeParse(body).success;
  if (envelopeType === "interactive") return interactionPayload.safeParse(body).success;
  return typeof body === "object" && body !== null;
}
