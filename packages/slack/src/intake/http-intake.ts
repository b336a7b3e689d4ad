import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { withBufferedBody } from "../library-patches.ts";
import { isNotAccepted } from "./not-accepted.ts";
import type { RejectionLog } from "./rejection-log.ts";
import { checkRequestShape, JSON_TYPE } from "./request-shape.ts";
import { verifySignature } from "./request-signature.ts";

/** Slack's own limit for a request body is far below this; Bolt uses the same figure. */
const BODY_LIMIT_BYTES = 4 * 1024 * 1024;

export interface HttpIntakeOptions {
  readonly path: string;
  readonly signingSecret: string;
  readonly rejections: RejectionLog;
  /** Bolt's HTTPReceiver request listener: gets only requests this intake let through. */
  readonly handOn: (request: IncomingMessage, response: ServerResponse) => void;
  /**
   * The fast path for the events the engine hears (`message`, `app_mention`): handed the parsed
   * body, it returns the hand-over to await before the acknowledgement, or undefined to leave the
   * request to Bolt. A refusal (`isNotAccepted`) is answered 503, so Slack delivers it again.
   */
  readonly takeEvent?: (
    body: Record<string, unknown>,
    retryNum: number | undefined,
  ) => Promise<void> | undefined;
  /**
   * Hears each failed hand-over: a refusal by the engine (`refused`, answered 503 so Slack delivers
   * the event again) or a fault (answered 200, as Bolt does: a redelivery would fail the same way).
   */
  readonly onHandOverFailed?: (error: unknown, refused: boolean) => void;
  readonly now?: () => number;
}

class BodyTooLarge extends Error {}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    request.on("data", (part: Buffer) => {
      size += part.length;
      if (size > BODY_LIMIT_BYTES) {
        reject(new BodyTooLarge());
        request.destroy();
        return;
      }
      parts.push(part);
    });
    request.on("end", () => resolve(Buffer.concat(parts)));
    request.on("error", reject);
  });
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}

/** Slack's delivery attempt, as Bolt reads it (`x-slack-retry-num`); undefined on the first. */
function retryNumOf(request: IncomingMessage): number | undefined {
  const retry = Number.parseInt(header(request, "x-slack-retry-num") ?? "", 10);
  return Number.isFinite(retry) ? retry : undefined;
}

function refuse(response: ServerResponse, status: number): void {
  if (response.headersSent) return;
  response.writeHead(status);
  response.end();
}

/**
 * The HTTP server Slack's requests arrive at. Every request is checked here — signature both ways
 * in time, content type, body shape — and only well-formed, authentic ones reach Bolt, whose
 * receiver reads fields of the body without guarding (a signed `null` body used to end the process).
 */
const ACCEPT_BACKLOG = 4096;

export class HttpIntake {
  readonly #options: HttpIntakeOptions;
  readonly #server: Server;

  constructor(options: HttpIntakeOptions) {
    this.#options = options;
    this.#server = createServer((request, response) => {
      this.#receive(request, response).catch((error: unknown) => {
        options.rejections.note("intake failure", { error });
        refuse(response, 500);
      });
    });
  }

  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once("error", reject);
      // A burst of deliveries opens many connections at once: room for them in the accept queue
      // (Node's default is 511; the system caps it at net.core.somaxconn), so none is dropped and
      // retried seconds later by the sender's TCP stack.
      this.#server.listen({ port, host, backlog: ACCEPT_BACKLOG }, () => {
        this.#server.off("error", reject);
        resolve();
      });
    });
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    if (!this.#server.listening) return;
    this.#server.closeIdleConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { rejections } = this.#options;
    const path = (request.url ?? "").split("?")[0];
    if (path !== this.#options.path || request.method !== "POST") {
      rejections.note("unknown route", { method: request.method, path });
      refuse(response, 404);
      return;
    }
    let rawBody: Buffer;
    try {
      rawBody = await readBody(request);
    } catch (error) {
      const tooLarge = error instanceof BodyTooLarge;
      rejections.note(tooLarge ? "body too large" : "body unreadable");
      refuse(response, tooLarge ? 413 : 400);
      return;
    }
    const now = Math.floor((this.#options.now?.() ?? Date.now()) / 1000);
    const signature = verifySignature(
      this.#options.signingSecret,
      {
        timestamp: header(request, "x-slack-request-timestamp"),
        signature: header(request, "x-slack-signature"),
        rawBody,
      },
      now,
    );
    if (!signature.ok) {
      rejections.note(signature.reason);
      refuse(response, 401);
      return;
    }
    const shape = checkRequestShape(header(request, "content-type"), rawBody.toString("utf8"));
    if (!shape.ok) {
      rejections.note(shape.reason);
      refuse(response, shape.status);
      return;
    }
    if (shape.contentType === JSON_TYPE) {
      const handOver = this.#options.takeEvent?.(shape.body, retryNumOf(request));
      if (handOver) {
        await this.#answerAfter(handOver, response);
        return;
      }
    }
    // Bolt reads the body we already read (a buffered request), and decides the form/JSON parse on
    // the exact media type, so it gets the bare one.
    request.headers["content-type"] = shape.contentType;
    this.#options.handOn(withBufferedBody(request, rawBody), response);
  }

  /** As Bolt answers an event it processed before responding: 200 once handed over, 503 when refused. */
  async #answerAfter(handOver: Promise<void>, response: ServerResponse): Promise<void> {
    try {
      await handOver;
    } catch (error) {
      const refused = isNotAccepted(error);
      this.#options.onHandOverFailed?.(error, refused);
      if (refused) {
        refuse(response, 503);
        return;
      }
    }
    if (response.headersSent) return;
    response.writeHead(200);
    response.end();
  }
}
