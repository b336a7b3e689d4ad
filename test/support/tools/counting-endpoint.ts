import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An outside service behind an HTTP tool that does something once per idempotency key: a repeat
 * with a known key gets the first result and is not executed again. `hold` keeps the next request
 * executed but unanswered (the caller dies or gives up mid-call).
 */
export async function startCountingEndpoint() {
  const executions: string[] = [];
  const keysSeen: string[] = [];
  const results = new Map<string, string>();
  let holdNext = false;
  const held: ServerResponse[] = [];
  let received: () => void = () => {};
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const key = String(request.headers["idempotency-key"] ?? "");
      keysSeen.push(key);
      let result = key ? results.get(key) : undefined;
      if (result === undefined) {
        executions.push(Buffer.concat(chunks).toString("utf8"));
        result = `refund #${executions.length} issued`;
        if (key) results.set(key, result);
      }
      received();
      if (holdNext) {
        holdNext = false;
        held.push(response);
        return;
      }
      response.writeHead(200, { "content-type": "text/plain" }).end(result);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/refund`,
    executions,
    keysSeen,
    /** The next request is executed but never answered; resolves once it arrived. */
    holdNextRequest(): Promise<void> {
      holdNext = true;
      return new Promise((resolve) => {
        received = resolve;
      });
    },
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
