/**
 * The order-desk MCP server as a process speaking MCP on stdio: `node stdio-order-server.ts`.
 * While the file named by ORDER_SERVER_REFUSE exists it exits at start, as a broken server would,
 * so tests can keep it down across reconnect attempts; ORDER_SERVER_PID_FILE gets its process id,
 * so tests can kill it as a crash would. With ORDER_SERVER_FILES=1 it also offers tools that return files.
 */
import { existsSync, writeFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createOrderServer } from "./order-server.ts";

const refuse = process.env.ORDER_SERVER_REFUSE;
if (refuse && existsSync(refuse)) {
  process.stderr.write("order-desk: refusing to start (maintenance)\n");
  process.exit(1);
}
if (process.env.ORDER_SERVER_PID_FILE) writeFileSync(process.env.ORDER_SERVER_PID_FILE, String(process.pid));
await createOrderServer([], { files: process.env.ORDER_SERVER_FILES === "1" }).connect(
  new StdioServerTransport(),
);
