import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** The refund tool's HTTP endpoint: records each call and answers with what it did. */
export async function startRefundEndpoint() {
  const calls: unknown[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      const args: unknown = JSON.parse(body || "{}");
      calls.push(args);
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(`refunded ${JSON.stringify(args)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/refund`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
