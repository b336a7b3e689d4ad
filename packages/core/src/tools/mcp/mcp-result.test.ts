import { describe, expect, it } from "vitest";
import { mcpResultParts } from "./mcp-result.ts";

async function bytesOf(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

describe("an MCP tool's result", () => {
  it("is text when the server answered text", () => {
    expect(mcpResultParts("shipped", "lookup")).toEqual({ text: "shipped", files: [] });
    expect(mcpResultParts({ type: "text", text: "x", structuredContent: { a: 1 } }, "lookup").files).toEqual(
      [],
    );
  });

  it("turns images, audio and embedded resources into files, in place, and names a link without fetching it", async () => {
    const parts = mcpResultParts(
      [
        { type: "text", text: "Here you are:" },
        {
          type: "image_url",
          image_url: { url: `data:image/png;base64,${Buffer.from("png").toString("base64")}` },
        },
        {
          type: "audio",
          source_type: "base64",
          data: Buffer.from("ogg").toString("base64"),
          mime_type: "audio/ogg",
        },
        {
          type: "file",
          source_type: "base64",
          data: Buffer.from("pdf").toString("base64"),
          mime_type: "application/pdf",
          metadata: { uri: "file:///invoices/A%2017.pdf" },
        },
        {
          type: "file",
          source_type: "text",
          text: "a,b",
          mime_type: "text/csv",
          metadata: { uri: "mem://notes/x.csv" },
        },
        { type: "file", source_type: "url", url: "https://example.com/big.zip" },
        { type: "mystery" },
      ],
      "desk",
    );
    expect(parts.files.map((file) => [file.name, file.declaredType])).toEqual([
      ["desk-image-1", "image/png"],
      ["desk-audio-2", "audio/ogg"],
      ["A 17.pdf", "application/pdf"],
      ["x.csv", "text/csv"],
    ]);
    expect(await Promise.all(parts.files.map((file) => bytesOf(file.body)))).toEqual([
      "png",
      "ogg",
      "pdf",
      "a,b",
    ]);
    const lines = parts.text.split("\n");
    expect(lines[0]).toBe("Here you are:");
    expect(lines.slice(1, 5)).toEqual(parts.files.map((file) => file.placeholder));
    expect(lines.slice(5)).toEqual([
      "[linked resource https://example.com/big.zip (not fetched)]",
      "[mystery omitted]",
    ]);
  });
});
