import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { PNG_1X1, pdfWithText } from "../../../packages/core/src/attachments/testing/sample-files.ts";

/** What the server saw of one tool call: its arguments, `_meta` and (over HTTP) request headers. */
export interface SeenCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly meta: Record<string, unknown>;
  readonly headers: Record<string, string>;
}

/** What parcel_photo and invoice_pdf return (a 1×1 PNG; a one-page PDF), so tests can compare bytes. */
export const PARCEL_PHOTO_PNG = PNG_1X1;
export const INVOICE_PDF = pdfWithText("Invoice for order A-17: 99 EUR");

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/**
 * A small order-desk MCP server on the official SDK, for end-to-end tests over stdio and
 * streamable HTTP: look up an order, refund one (an operator marks it for approval), and echo
 * what the call carried (`_meta`, headers) so tests can check the request ids arrive.
 */
export function createOrderServer(seen: SeenCall[] = [], options: { files?: boolean } = {}): McpServer {
  const server = new McpServer({ name: "order-desk", version: "1.0.0" });
  const record = (
    tool: string,
    args: Record<string, unknown>,
    extra: { _meta?: object; requestInfo?: { headers: Record<string, string | string[] | undefined> } },
  ) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(extra.requestInfo?.headers ?? {}))
      if (typeof value === "string") headers[name] = value;
    const call = { tool, args, meta: { ...(extra._meta ?? {}) }, headers };
    seen.push(call);
    return call;
  };
  server.registerTool(
    "lookup_order",
    {
      description: "Look up an order's shipping status by its order number",
      inputSchema: { orderId: z.string().describe("the order number, e.g. A-17") },
    },
    async ({ orderId }, extra) => {
      record("lookup_order", { orderId }, extra);
      if (!/^[A-Z]-\d+$/.test(orderId))
        return { ...text(`No order ${orderId}: order numbers look like A-17.`), isError: true };
      return text(`Order ${orderId}: shipped on 2026-11-20, arriving Friday.`);
    },
  );
  server.registerTool(
    "refund_payment",
    {
      description: "Refund an order's payment to the customer",
      inputSchema: { orderId: z.string(), amount: z.number().positive() },
    },
    async ({ orderId, amount }, extra) => {
      record("refund_payment", { orderId, amount }, extra);
      return text(`Refunded ${amount} EUR for order ${orderId}.`);
    },
  );
  server.registerTool(
    "call_context",
    { description: "Report the request ids this call carried (test helper)", inputSchema: {} },
    async (_args, extra) => text(JSON.stringify(record("call_context", {}, extra))),
  );
  server.registerTool(
    "order_history",
    {
      description: "Export a customer's whole order history (long)",
      inputSchema: { customerId: z.string(), lines: z.number().int().positive().max(100_000) },
    },
    async ({ customerId, lines }) =>
      text(Array.from({ length: lines }, (_, i) => `${customerId} order A-${i}: delivered`).join("\n")),
  );
  server.registerTool(
    "warehouse_check",
    {
      description: "Ask the warehouse about stock (slow: waits the given seconds)",
      inputSchema: { seconds: z.number().nonnegative() },
    },
    async ({ seconds }) => {
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      return text("in stock");
    },
  );
  if (options.files) registerFileTools(server);
  server.registerTool(
    "internal_audit",
    { description: "Internal audit log access, never for agents", inputSchema: {} },
    async () => text("audit log"),
  );
  return server;
}

/** Tools whose results are files: an image, and a PDF as an embedded resource. */
function registerFileTools(server: McpServer): void {
  server.registerTool(
    "parcel_photo",
    { description: "A photo of an order's parcel at the door", inputSchema: { orderId: z.string() } },
    async ({ orderId }) => ({
      content: [
        { type: "text" as const, text: `Delivery photo for ${orderId}:` },
        { type: "image" as const, data: PARCEL_PHOTO_PNG.toString("base64"), mimeType: "image/png" },
      ],
    }),
  );
  server.registerTool(
    "invoice_pdf",
    { description: "An order's invoice as a PDF", inputSchema: { orderId: z.string() } },
    async ({ orderId }) => ({
      content: [
        {
          type: "resource" as const,
          resource: {
            uri: `file:///invoices/${orderId}.pdf`,
            mimeType: "application/pdf",
            blob: INVOICE_PDF.toString("base64"),
          },
        },
      ],
    }),
  );
}
