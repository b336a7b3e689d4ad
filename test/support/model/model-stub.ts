/**
 * An OpenAI-compatible model server for tests: `POST /v1/chat/completions`, plain JSON or streamed
 * (SSE), text and tool calls, usage figures. Each request is answered by a script, so a test decides
 * latency, hangs and failures request by request:
 *
 *   const stub = await ModelStub.start((request) => answer(`re: ${request.lastUserText}`));
 *   // switchboard.yaml → model: { provider: openai-compatible, baseUrl: stub.baseUrl, model: stub, apiKey: x }
 *   stub.script = () => hang();
 *   await stub.inFlight.atLeast(3);   // three requests are being held right now
 *
 * A hung request stays open until the caller gives up (its abort closes the connection) or the
 * stub closes; `inFlight` counts requests whose response has not ended.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChatRequest, readChatRequest, type StubReply } from "./chat-request.ts";
import { type Completion, completionBody, streamEvents } from "./completion-bodies.ts";

export type ModelScript = (request: ChatRequest) => StubReply | Promise<StubReply>;

/** The stub's default: a short answer naming the question, so every answer is traceable to its origin. */
export const echoScript: ModelScript = (request) => ({
  kind: "answer",
  text: `Answer to: ${request.lastUserText}`,
});

/** A count that tests can wait on: resolves when it reaches a level. */
export class Gauge {
  #value = 0;
  #waiters: { level: number; resolve: () => void }[] = [];

  get value(): number {
    return this.#value;
  }

  add(delta: number): void {
    this.#value += delta;
    const ready = this.#waiters.filter((waiter) => this.#value >= waiter.level);
    this.#waiters = this.#waiters.filter((waiter) => this.#value < waiter.level);
    for (const waiter of ready) waiter.resolve();
  }

  /** Resolves once the count is at least `level` (at once if it already is). */
  atLeast(level: number): Promise<void> {
    if (this.#value >= level) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ level, resolve }));
  }
}

export class ModelStub {
  script: ModelScript;
  /** Every request, in arrival order. */
  readonly requests: ChatRequest[] = [];
  /** Requests received and not yet answered (or abandoned by the caller). */
  readonly inFlight = new Gauge();
  /** Requests received, in total. */
  readonly received = new Gauge();
  /** Requests the caller abandoned before the answer was complete (aborted, timed out, killed). */
  readonly abandoned = new Gauge();
  readonly #server: Server;
  #url = "";
  #toolCallIds = 0;

  private constructor(script: ModelScript) {
    this.script = script;
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: String(error), type: "stub_error" } }));
      });
    });
  }

  static async start(script: ModelScript = echoScript): Promise<ModelStub> {
    const stub = new ModelStub(script);
    await new Promise<void>((resolve) => stub.#server.listen(0, "127.0.0.1", resolve));
    stub.#url = `http://127.0.0.1:${(stub.#server.address() as AddressInfo).port}`;
    return stub;
  }

  /** What `model.baseUrl` points at. */
  get baseUrl(): string {
    return `${this.#url}/v1`;
  }

  /** The `model:` section for a switchboard.yaml (JSON is YAML), with optional call limits. */
  modelConfig(
    extra: {
      maxRetries?: number;
      timeoutSeconds?: number;
      retryLater?: { attempts: number; firstDelaySeconds: number };
    } = {},
  ): Record<string, unknown> {
    return { provider: "openai-compatible", baseUrl: this.baseUrl, model: "stub", apiKey: "x", ...extra };
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? "/", this.#url);
    if (request.method !== "POST" || url.pathname !== "/v1/chat/completions") {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `no route ${request.method} ${url.pathname}` } }));
      return;
    }
    const chat = readChatRequest(
      this.requests.length,
      Buffer.concat(chunks).toString("utf8"),
      request.headers,
    );
    this.requests.push(chat);
    this.received.add(1);
    this.inFlight.add(1);
    let open = true;
    response.on("close", () => {
      if (!response.writableFinished) this.abandoned.add(1);
      open = false;
      this.inFlight.add(-1);
    });
    const reply = await this.script(chat);
    if (reply.kind === "hang") return;
    if (reply.latencyMs) await pause(reply.latencyMs);
    if (!open) return;
    if (reply.kind === "fail") {
      response.writeHead(reply.status, {
        "content-type": "application/json",
        ...(reply.retryAfterSeconds === undefined ? {} : { "retry-after": String(reply.retryAfterSeconds) }),
      });
      response.end(
        JSON.stringify({ error: { message: `stub failure ${reply.status}`, type: "server_error" } }),
      );
      return;
    }
    const completion: Completion = {
      id: `chatcmpl-${chat.index}`,
      text: reply.text ?? "",
      toolCalls: (reply.toolCalls ?? []).map((call) => ({
        ...call,
        id: call.id ?? `call_${++this.#toolCallIds}`,
      })),
    };
    if (!chat.streamed) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(completionBody(chat, completion)));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.flushHeaders();
    if (reply.silentMs) await pause(reply.silentMs);
    for (const event of streamEvents(chat, completion)) {
      if (!open) return;
      response.write(event);
      if (reply.chunkDelayMs) await pause(reply.chunkDelayMs);
    }
    response.end();
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
