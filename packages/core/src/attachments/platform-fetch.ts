import { type AttachmentBody, AttachmentFetchError } from "../conversation/files.ts";

export interface PlatformFileRequest {
  readonly url: string;
  /** The file's name, for the sentence the sender reads. */
  readonly name: string;
  /** The platform, named in sentences and log lines (`Slack`, `Discord`, `Matrix`). */
  readonly platform: string;
  /**
   * The origins (`https://files.slack.com`) this platform serves files from. Any other URL is
   * refused before a request is made, and so is a redirect that leaves them.
   */
  readonly allowedOrigins: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
  /** What the operator must fix when the platform answers 401/403 (a scope, a permission). */
  readonly forbiddenHint?: string;
  /** Statuses that mean the link expired (Discord's signed CDN links): the adapter may refresh it. */
  readonly expiredStatuses?: readonly number[];
  readonly fetchImpl?: typeof fetch;
}

const MAX_REDIRECTS = 3;

/** A download link the platform says has expired (the adapter asks the platform for a fresh one). */
export class ExpiredFileLinkError extends AttachmentFetchError {}

/**
 * Downloads a file from a platform's own hosts with the adapter's credentials, streamed. The one
 * place adapters fetch files, so the rules hold on every platform: only the platform's origins are
 * ever requested (never a URL from message text or from a field the sender controls), redirects
 * are followed only within them (credentials are never sent elsewhere), and refusals become one
 * sentence for the sender plus a hint for the operator.
 */
export async function fetchPlatformFile(request: PlatformFileRequest): Promise<AttachmentBody> {
  const fetchImpl = request.fetchImpl ?? fetch;
  let url = checkedUrl(request, request.url);
  for (let redirects = 0; ; redirects++) {
    let response: Response;
    try {
      response = await fetchImpl(url, {
        redirect: "manual",
        signal: request.signal,
        ...(request.headers ? { headers: { ...request.headers } } : {}),
      });
    } catch (error) {
      request.signal.throwIfAborted();
      throw new AttachmentFetchError(`could not reach ${request.platform} to download ${request.name}`, {
        userMessage: `I could not download ${request.name} from ${request.platform} just now; please send it again.`,
        cause: error,
      });
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      if (!location || redirects >= MAX_REDIRECTS)
        throw refused(request, response.status, "redirected too often");
      url = checkedUrl(request, new URL(location, url).toString());
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw refusal(request, response.status);
    }
    if (!response.body) throw refused(request, response.status, "the answer had no body");
    const length = Number(response.headers.get("content-length"));
    return {
      body: response.body,
      ...(Number.isFinite(length) && length > 0 ? { declaredSize: length } : {}),
    };
  }
}

function checkedUrl(request: PlatformFileRequest, url: string): string {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = "";
  }
  if (!request.allowedOrigins.includes(origin))
    throw new AttachmentFetchError(
      `refused to download ${request.name} from ${origin || url.slice(0, 100)}`,
      {
        userMessage: `I could not open ${request.name}: it is not stored on ${request.platform}.`,
        operatorHint: `only ${request.allowedOrigins.join(", ")} are fetched for ${request.platform} files`,
      },
    );
  return url;
}

function refusal(request: PlatformFileRequest, status: number): AttachmentFetchError {
  if (request.expiredStatuses?.includes(status))
    return new ExpiredFileLinkError(
      `${request.platform}'s link to ${request.name} has expired (HTTP ${status})`,
      {
        userMessage: `The link to ${request.name} has expired; please send the file again.`,
        status,
      },
    );
  if (status === 401 || status === 403)
    return new AttachmentFetchError(
      `${request.platform} refused to let the bot download ${request.name} (HTTP ${status})`,
      {
        userMessage: `I am not allowed to open ${request.name} here, so I could not read it.`,
        status,
        ...(request.forbiddenHint ? { operatorHint: request.forbiddenHint } : {}),
      },
    );
  if (status === 404 || status === 410)
    return new AttachmentFetchError(`${request.platform} no longer has ${request.name} (HTTP ${status})`, {
      userMessage: `${request.name} is no longer available on ${request.platform}; please send it again.`,
      status,
    });
  return refused(request, status, `HTTP ${status}`);
}

function refused(request: PlatformFileRequest, status: number, why: string): AttachmentFetchError {
  return new AttachmentFetchError(`${request.platform} did not serve ${request.name}: ${why}`, {
    userMessage: `I could not download ${request.name} from ${request.platform}; please send it again.`,
    status,
  });
}
