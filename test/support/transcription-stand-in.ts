/** An OpenAI-compatible `POST /v1/audio/transcriptions` for tests: answers every file with `text`. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export class TranscriptionStandIn {
  readonly requests: { contentType: string; bytes: number }[] = [];
  readonly #server: Server;
  #url = "";

  private constructor(text: string) {
    this.#server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      if (request.method !== "POST" || request.url !== "/v1/audio/transcriptions") {
        response.writeHead(404).end();
        return;
      }
      this.requests.push({
        contentType: request.headers["content-type"] ?? "",
        bytes: Buffer.concat(chunks).byteLength,
      });
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ text }));
    });
  }

  static async start(text: string): Promise<TranscriptionStandIn> {
    const stand = new TranscriptionStandIn(text);
    await new Promise<void>((resolve) => stand.#server.listen(0, "127.0.0.1", resolve));
    stand.#url = `http://127.0.0.1:${(stand.#server.address() as AddressInfo).port}/v1`;
    return stand;
  }

  get baseUrl(): string {
    return this.#url;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
