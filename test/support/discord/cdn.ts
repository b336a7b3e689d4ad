import { createHmac, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { nextSnowflake } from "./snowflakes.ts";

/** A file on the stand-in's CDN: sent by a person, or attached by the bot to a post. */
export interface FileRecord {
  readonly id: string;
  readonly channelId: string;
  readonly filename: string;
  readonly contentType: string;
  readonly bytes: Buffer;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Discord's CDN as the bot meets it: attachments at `/attachments/<channel>/<id>/<name>` behind
 * signed links that expire. A link carries `ex` (expiry, hex Unix seconds), `is` (issued) and `hm`
 * (the signature); the CDN answers an expired or forged link 404 "This content is no longer
 * available.", as Discord does. Messages read over REST carry fresh links; the gateway's can be made
 * stale (`gatewayLinksExpired`) to test renewal.
 */
export class DiscordCdn {
  /** Where the CDN is served (the stand-in's own origin), set once it listens. */
  baseUrl = "";
  /** How long a link is good for after it is handed out. */
  linkLifetimeMs = DAY_MS;
  /** Links in gateway events are already expired (as if the bot read the event a day late). */
  gatewayLinksExpired = false;
  readonly files = new Map<string, FileRecord>();
  /** Every CDN request: path and the answer's status. */
  readonly fetches: { path: string; status: number; authorization: string | undefined }[] = [];
  readonly #secret = randomBytes(16);

  add(input: Omit<FileRecord, "id">): FileRecord {
    const file = { ...input, id: nextSnowflake() };
    this.files.set(file.id, file);
    return file;
  }

  /** The link a message payload carries for a file. */
  link(file: FileRecord, options: { gateway?: boolean } = {}): string {
    const issued = Math.floor(Date.now() / 1000);
    const lifetime = options.gateway && this.gatewayLinksExpired ? -60_000 : this.linkLifetimeMs;
    const expiry = Math.floor((Date.now() + lifetime) / 1000);
    const path = pathOf(file);
    const ex = expiry.toString(16);
    const url = new URL(`${this.baseUrl}${path}`);
    url.searchParams.set("ex", ex);
    url.searchParams.set("is", issued.toString(16));
    url.searchParams.set("hm", this.#sign(path, ex));
    return url.toString();
  }

  /** The attachment object of a message payload. */
  payload(file: FileRecord, options: { gateway?: boolean } = {}) {
    const url = this.link(file, options);
    return {
      id: file.id,
      filename: file.filename,
      size: file.bytes.byteLength,
      url,
      proxy_url: url,
      content_type: file.contentType,
    };
  }

  /** Serves `/attachments/...`; false for any other path. */
  serve(url: URL, authorization: string | undefined, response: ServerResponse): boolean {
    const match = /^\/attachments\/(\d+)\/(\d+)\/([^/]+)$/.exec(url.pathname);
    if (!match) return false;
    const file = this.files.get(match[2] ?? "");
    const ex = url.searchParams.get("ex") ?? "";
    const valid =
      file !== undefined &&
      pathOf(file) === url.pathname &&
      url.searchParams.get("hm") === this.#sign(url.pathname, ex) &&
      Number.parseInt(ex, 16) * 1000 > Date.now();
    this.fetches.push({ path: url.pathname, status: valid ? 200 : 404, authorization });
    if (!valid) {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("This content is no longer available.");
      return true;
    }
    response.writeHead(200, {
      "content-type": file.contentType,
      "content-length": String(file.bytes.byteLength),
    });
    response.end(file.bytes);
    return true;
  }

  #sign(path: string, ex: string): string {
    return createHmac("sha256", this.#secret).update(`${path}:${ex}`).digest("hex");
  }
}

function pathOf(file: FileRecord): string {
  return `/attachments/${file.channelId}/${file.id}/${encodeURIComponent(file.filename)}`;
}
