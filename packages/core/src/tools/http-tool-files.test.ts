import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ToolMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBlob } from "../attachments/blobs/blob-store.ts";
import { MemoryBlobStore } from "../attachments/blobs/memory-blob-store.ts";
import { FILES_ARTIFACT_KEY, type OutboundFile } from "../attachments/stored-attachment.ts";
import { PNG_1X1 } from "../attachments/testing/sample-files.ts";
import { createHttpTool, fileNameOf, httpToolConfigSchema, isFileResponse } from "./http-tool.ts";

const run = { configurable: { thread_id: "slack:T1:C1:1.0", tool_call_id: "call-1" } };

describe("an HTTP tool that answers with a file", () => {
  let server: Server;
  let base = "";
  let hugeBytesSent = 0;
  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      if (request.url === "/photo") {
        response.writeHead(200, {
          "content-type": "application/octet-stream",
          "content-disposition": `attachment; filename*=UTF-8''..%2F..%2Fparcel%0A.png`,
        });
        response.end(PNG_1X1);
      } else if (request.url === "/huge") {
        response.writeHead(200, { "content-type": "application/zip" });
        const chunk = Buffer.alloc(64 * 1024, 1);
        const write = () => {
          while (!response.destroyed && response.write(chunk)) hugeBytesSent += chunk.byteLength;
          if (!response.destroyed) response.once("drain", write);
        };
        write();
      } else {
        response.writeHead(200, { "content-type": "application/json" });
        response.end('{"status":"shipped"}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const make = (path: string, blobs?: MemoryBlobStore, maxBytes = 1024 * 1024) =>
    createHttpTool(
      httpToolConfigSchema.parse({ name: "orders", description: "orders", url: `${base}${path}` }),
      blobs ? { files: { blobs, maxBytes } } : {},
    );

  it("keeps the file (typed by its bytes, named safely) and gives the model one line", async () => {
    const blobs = new MemoryBlobStore();
    const result = await make("/photo", blobs).invoke({}, run);
    if (!ToolMessage.isInstance(result)) throw new Error("expected a tool message with the file");
    const [file] = (result.artifact as Record<string, OutboundFile[]>)[FILES_ARTIFACT_KEY] ?? [];
    expect(file).toMatchObject({ name: "parcel.png", mediaType: "image/png", size: PNG_1X1.byteLength });
    expect(await readBlob(blobs, file!.blob)).toEqual(PNG_1X1);
    expect(result.content).toBe(
      "Returned the file parcel.png (image/png, 70 bytes). It will be attached after your answer; do not paste its contents.",
    );
    expect(result.tool_call_id).toBe("call-1");
  });

  it("stops reading at the file limit and keeps nothing", async () => {
    const blobs = new MemoryBlobStore();
    const result = await make("/huge", blobs, 256 * 1024).invoke({}, run);
    expect(result).toBe("orders returned a file over the 256 KB limit; it was not kept or sent.");
    expect(await blobs.sweep(Date.now() + 1)).toBe(0);
    expect(hugeBytesSent).toBeLessThan(64 * 1024 * 1024);
  });

  it("leaves JSON to the model, and says so when files are off", async () => {
    expect(await make("/json", new MemoryBlobStore()).invoke({}, run)).toBe('{"status":"shipped"}');
    expect(await make("/photo").invoke({}, run)).toMatch(
      /returned a file \(application\/octet-stream\), but files are off/,
    );
  });

  it.each([
    ["application/json", undefined, false],
    ["application/problem+json", undefined, false],
    ["text/plain; charset=utf-8", undefined, false],
    ["text/html", undefined, false],
    ["", undefined, false],
    ["image/png", undefined, true],
    ["application/pdf", undefined, true],
    ["text/csv", undefined, true],
    ["application/json", "attachment; filename=data.json", true],
  ])("a %s answer (disposition %s) is a file: %s", (type, disposition, file) => {
    const headers = new Headers({ ...(type ? { "content-type": type } : {}) });
    if (disposition) headers.set("content-disposition", disposition);
    expect(isFileResponse(headers)).toBe(file);
  });

  it.each([
    ['attachment; filename="report q3.pdf"', "report q3.pdf"],
    ["attachment; filename=plain.csv", "plain.csv"],
    ["attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf; filename=resume.pdf", "résumé.pdf"],
    ["attachment; filename*=UTF-8''%E0%A4%A", undefined],
    ["inline", undefined],
  ])("the name in %s is %s", (disposition, name) => {
    expect(fileNameOf(disposition)).toBe(name);
  });
});
