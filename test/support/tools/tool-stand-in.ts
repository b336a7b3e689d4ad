/**
 * The far side of an HTTP tool (a refund service, a booking API): counts what it executes. A request
 * with an `Idempotency-Key` it has seen is a retry and executes nothing new; one without a key always
 * executes. A test can hold requests (the service is slow) so a crash lands mid-call.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Gauge } from "../model/model-stub.ts";

export interface ToolCall {
  readonly idempotencyKey: string | undefined;
  readonly body: Record<string, unknown>;
  readonly headers: IncomingHttpHeaders;
}

export class ToolStandIn {
  readonly calls: ToolCall[] = [];
  /** Requests received (retries included). */
  readonly received = new Gauge();
  /** Requests being held right now. */
  readonly held = new Gauge();
  /** Hold the response to a request while this says so; undefined → answer at once. */
  holdWhile: ((call: ToolCall) => boolean) | undefined;
  readonly #server: Server;
  readonly #releases: (() => void)[] = [];
  #url = "";

  private constructor() {
    this.#server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks).toString("utf8");
      const header = request.headers["idempotency-key"];
      const call: ToolCall = {
        idempotencyKey: typeof header === "string" ? header : undefined,
        body: raw === "" ? {} : (JSON.parse(raw) as Record<string, unknown>),
        headers: request.headers,
      };
      const isRetry =
        call.idempotencyKey !== undefined &&
        this.calls.some((earlier) => earlier.idempotencyKey === call.idempotencyKey);
      this.calls.push(call);
      this.received.add(1);
      if (this.holdWhile?.(call)) {
        this.held.add(1);
        await new Promise<void>((resolve) => this.#releases.push(resolve));
        this.held.add(-1);
      }
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ ok: true, refunded: call.body.order ?? null, replayed: isRetry }));
    });
  }

  static async start(): Promise<ToolStandIn> {
    const standIn = new ToolStandIn();
    await new Promise<void>((resolve) => standIn.#server.listen(0, "127.0.0.1", resolve));
    standIn.#url = `http://127.0.0.1:${(standIn.#server.address() as AddressInfo).port}`;
    return standIn;
  }

  get url(): string {
    return `${this.#url}/refunds`;
  }

  /** Side effects performed: one per distinct idempotency key, one per request without a key. */
  executions(filter: (call: ToolCall) => boolean = () => true): number {
    const calls = this.calls.filter(filter);
    const keys = new Set(calls.flatMap((call) => (call.idempotencyKey ? [call.idempotencyKey] : [])));
    return keys.size + calls.filter((call) => call.idempotencyKey === undefined).length;
  }

  /** Answers every held request, and every later one at once. */
  release(): void {
    this.holdWhile = undefined;
    for (const resolve of this.#releases.splice(0)) resolve();
  }

  async close(): Promise<void> {
    this.release();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
