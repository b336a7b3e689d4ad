import type { AttachmentsConfig } from "../attachments-config.ts";

type TranscriptionConfig = NonNullable<AttachmentsConfig["transcription"]>;

/** The transcription endpoint failed; the message says how (for the log), never with the key. */
export class TranscriptionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TranscriptionError";
  }
}

/**
 * Text of a voice note or audio file from an OpenAI-compatible `POST /audio/transcriptions`
 * (multipart: `file`, `model`; JSON answer `{ text }`). The audio is at most `attachments.maxBytes`
 * and is sent from memory.
 */
export async function transcribe(
  config: TranscriptionConfig,
  audio: { bytes: Uint8Array; name: string; mediaType: string },
  signal: AbortSignal,
  fetchImpl: typeof fetch = fetch,
): Promise<string> {
  const form = new FormData();
  form.set("file", new Blob([audio.bytes], { type: audio.mediaType }), audio.name);
  form.set("model", config.model);
  form.set("response_format", "json");
  const timeout = AbortSignal.timeout(config.timeoutSeconds * 1000);
  const url = `${config.baseUrl.replace(/\/+$/, "")}/audio/transcriptions`;
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: "POST",
      body: form,
      headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
      signal: AbortSignal.any([signal, timeout]),
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new TranscriptionError(
      timeout.aborted
        ? `the transcription endpoint ${url} did not answer within ${config.timeoutSeconds} s`
        : `could not reach the transcription endpoint ${url}`,
      { cause: error },
    );
  }
  const body = await response.text();
  if (!response.ok)
    throw new TranscriptionError(
      `the transcription endpoint ${url} answered HTTP ${response.status}: ${body.slice(0, 200)}`,
    );
  let text: unknown;
  try {
    text = (JSON.parse(body) as { text?: unknown }).text;
  } catch {
    text = undefined;
  }
  if (typeof text !== "string")
    throw new TranscriptionError(`the transcription endpoint ${url} answered without a "text" field`);
  return text.trim();
}
