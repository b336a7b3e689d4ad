import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AttachmentBody, AttachmentFetchError, type InboundAttachment } from "../conversation/files.ts";
import type { InboundMessage } from "../conversation/messages.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { MemoryStore } from "../store/memory/memory-store.ts";
import { tempDirectory } from "../store/test-backends.ts";
import { AttachmentReader } from "./attachment-reader.ts";
import { attachmentsConfigSchema } from "./attachments-config.ts";
import type { BlobStore } from "./blobs/blob-store.ts";
import { FolderBlobStore } from "./blobs/folder-blob-store.ts";
import { MemoryBlobStore } from "./blobs/memory-blob-store.ts";
import {
  bombPdf,
  encryptedPdf,
  malformedPdf,
  oggVoiceNote,
  PNG_1X1,
  pdfWithText,
  SAMPLE_CSV,
} from "./testing/sample-files.ts";

const KEY = "slack:T1:C1:1.0";

function message(attachments: InboundAttachment[]): InboundMessage {
  return {
    id: "m1",
    conversation: { platform: "test", path: ["C1", "1.0"] },
    author: { id: "u1", isBot: false, isSelf: false },
    text: "what is this?",
    isDirect: true,
    mentionsBot: false,
    isEdit: false,
    sentAt: 0,
    attachments,
  };
}

const file = (name: string, bytes: Uint8Array | string, extra: Partial<InboundAttachment> = {}) => ({
  name,
  ref: { bytes: Buffer.from(bytes).toString("base64") },
  ...extra,
});

/** A platform that serves each attachment's bytes, counting what it streamed. */
function source(options: { endless?: boolean; fail?: AttachmentFetchError } = {}) {
  const served: { bytes: number; signal?: AbortSignal } = { bytes: 0 };
  return {
    served,
    attachments: {
      async open(attachment: InboundAttachment, signal: AbortSignal): Promise<AttachmentBody> {
        if (options.fail) throw options.fail;
        served.signal = signal;
        const bytes = Buffer.from(String(attachment.ref.bytes), "base64");
        async function* body() {
          if (!options.endless) {
            served.bytes += bytes.byteLength;
            yield bytes;
            return;
          }
          for (;;) {
            if (signal.aborted) return;
            served.bytes += 64 * 1024;
            yield new Uint8Array(64 * 1024);
          }
        }
        return { body: body(), declaredSize: 10 };
      },
    },
  };
}

function reader(options: {
  blobs?: BlobStore;
  config?: Record<string, unknown>;
  source?: ReturnType<typeof source>;
  fetchImpl?: typeof fetch;
}) {
  const logger = createMemoryLogger();
  const platform = options.source ?? source();
  return {
    logger,
    platform,
    reader: new AttachmentReader({
      config: attachmentsConfigSchema.parse(options.config ?? {}),
      blobs: options.blobs ?? new MemoryBlobStore(),
      store: new MemoryStore(),
      sourceFor: () => platform.attachments,
      logger,
      ...(options.fetchImpl ? { fetchImpl: options.fetchImpl } : {}),
    }),
  };
}

const context = { key: KEY, signal: new AbortController().signal, imagesAccepted: true };

describe("AttachmentReader", () => {
  it("keeps an image as a reference and describes it by its bytes", async () => {
    const { reader: r } = reader({});
    const read = await r.read([message([file("shot.png", PNG_1X1)])], context);
    expect(read?.images.map((image) => [image.name, image.mediaType, image.size])).toEqual([
      ["shot.png", "image/png", PNG_1X1.byteLength],
    ]);
    expect(read?.modelText).toBe(
      "[Image attached: shot.png · image/png · 70 bytes — shown to you as an image]",
    );
    expect(read?.notices).toEqual([]);
  });

  it("reads a PDF's text, and a CSV's, within the token budget with the cut said", async () => {
    const { reader: r } = reader({ config: { maxTextTokens: 100 } });
    const longCsv = `${SAMPLE_CSV}${"east,1\n".repeat(200)}`;
    const read = await r.read(
      [message([file("invoice.pdf", pdfWithText("Invoice 42: total 99 EUR")), file("sales.csv", longCsv)])],
      context,
    );
    expect(read?.modelText).toContain("[File attached: invoice.pdf · application/pdf");
    expect(read?.modelText).toContain("Invoice 42: total 99 EUR");
    expect(read?.modelText).toContain("[File attached: sales.csv · text/csv");
    expect(read?.modelText).toMatch(
      /\[sales\.csv was cut: only its first \d+ characters are shown \(the limit is 400\)\]/,
    );
    expect(read?.summary[0]).toMatch(
      /^File invoice\.pdf · application\/pdf · \d+ bytes: Invoice 42: total 99 EUR$/,
    );
  });

  it("treats a file by its bytes, not its name or declared type", async () => {
    const { reader: r } = reader({});
    const read = await r.read(
      [
        message([
          file("cat.png", pdfWithText("not a cat"), { declaredType: "image/png" }),
          file("notes.pdf", "plain words"),
        ]),
      ],
      context,
    );
    expect(read?.images).toEqual([]);
    expect(read?.stored.map((stored) => [stored.name, stored.kind, stored.mediaType])).toEqual([
      ["cat.png", "pdf", "application/pdf"],
      ["notes.pdf", "text", "text/plain"],
    ]);
    expect(read?.modelText).toContain("not a cat");
  });

  it("stops downloading at the cap and tells the sender the limit", async () => {
    const platform = source({ endless: true });
    const { reader: r } = reader({ source: platform, config: { maxBytes: 1024 * 1024 } });
    const read = await r.read([message([file("huge.bin", "")])], context);
    expect(platform.served.signal?.aborted).toBe(true);
    expect(platform.served.bytes).toBeLessThanOrEqual(1024 * 1024 + 64 * 1024);
    expect(read?.notices).toEqual(["huge.bin is larger than the 1.0 MB I can read, so I did not open it."]);
    expect(read?.modelText).toBe("[File attached: huge.bin — not read: it is larger than the 1.0 MB limit]");
  });

  it("does not start a download the platform already says is too large", async () => {
    const platform = source();
    const { reader: r } = reader({ source: platform, config: { maxBytes: 2048 } });
    const read = await r.read([message([file("big.zip", "x", { declaredSize: 50_000_000 })])], context);
    expect(platform.served.bytes).toBe(0);
    expect(read?.notices[0]).toContain("larger than the 2 KB");
  });

  it.each([
    ["encrypted", async () => encryptedPdf(), "the PDF is password-protected"],
    ["malformed", async () => malformedPdf(), "the PDF is damaged or not really a PDF"],
    [
      "a decompression bomb",
      async () => bombPdf(200 * 1024 * 1024),
      "the PDF is too complex to read within the limits",
    ],
  ])(
    "refuses a PDF that is %s within the time and memory bounds",
    { timeout: 60_000 },
    async (_, make, reason) => {
      const { reader: r } = reader({ config: { pdfMemoryMb: 128, pdfTimeoutSeconds: 15 } });
      const before = process.memoryUsage().rss;
      const read = await r.read([message([file("doc.pdf", await make())])], context);
      expect(read?.modelText).toMatch(new RegExp(`— not read: ${reason}\\]$`));
      // The reader's thread never brought the process near the bomb's size.
      expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
    },
  );

  it("never uses a hostile file name as a path", async () => {
    const dir = await tempDirectory();
    try {
      const root = join(dir.path, "blobs");
      const { reader: r } = reader({ blobs: new FolderBlobStore(root) });
      const hostile = `../../etc/passwd\u0000\u202e\u0007${"x".repeat(10_000)}.txt`;
      const read = await r.read([message([file(hostile, "hello"), file("..\\..\\win.ini", "hi")])], context);
      const names = read?.stored.map((stored) => stored.name) ?? [];
      expect(names[0]).toMatch(/^passwdx+….txt$/);
      expect(names[0]?.length).toBeLessThanOrEqual(120);
      expect(names[1]).toBe("win.ini");
      const spaces = await readdir(root);
      expect(spaces).toHaveLength(1);
      expect((await readdir(join(root, spaces[0]!))).every((entry) => /^[0-9a-f]{64}$/.test(entry))).toBe(
        true,
      );
    } finally {
      await dir.remove();
    }
  });

  it("gives the sender one sentence and the operator the scope when a download is refused", async () => {
    const refused = new AttachmentFetchError("Slack answered HTTP 403", {
      userMessage: "I could not open shot.png: I am not allowed to read files here.",
      operatorHint: "add the files:read scope to the Slack app and reinstall it",
      status: 403,
    });
    const { reader: r, logger } = reader({ source: source({ fail: refused }) });
    const read = await r.read([message([file("shot.png", PNG_1X1)])], context);
    expect(read?.notices).toEqual(["I could not open shot.png: I am not allowed to read files here."]);
    const line = logger.lines.find((entry) => entry.message === "could not download an attachment");
    expect(line?.fields).toMatchObject({
      fix: "add the files:read scope to the Slack app and reinstall it",
      status: 403,
    });
  });

  it("transcribes a voice note through the configured endpoint, or says it cannot", async () => {
    const withoutEndpoint = reader({});
    const unheard = await withoutEndpoint.reader.read(
      [message([file("memo.ogg", oggVoiceNote(), { voice: true })])],
      context,
    );
    expect(unheard?.notices).toEqual([
      "I can't listen to audio here (no transcription service is set up), so I only know you sent the voice note memo.ogg.",
    ]);
    const requests: { url: string; model: unknown; type: unknown }[] = [];
    const fetchImpl = (async (url: string, init: RequestInit) => {
      const form = init.body as FormData;
      const sent = form.get("file") as Blob;
      requests.push({ url, model: form.get("model"), type: sent.type });
      return new Response(JSON.stringify({ text: "Please move the meeting to Friday." }));
    }) as unknown as typeof fetch;
    const withEndpoint = reader({
      config: { transcription: { baseUrl: "http://transcribe.test/v1/", model: "whisper-1" } },
      fetchImpl,
    });
    const heard = await withEndpoint.reader.read(
      [message([file("memo.ogg", oggVoiceNote(), { voice: true })])],
      context,
    );
    expect(requests).toEqual([
      { url: "http://transcribe.test/v1/audio/transcriptions", model: "whisper-1", type: "audio/ogg" },
    ]);
    expect(heard?.modelText).toContain("[Voice note attached: memo.ogg · audio/ogg");
    expect(heard?.modelText).toContain("Please move the meeting to Friday.");
    expect(heard?.notices).toEqual([]);
  });

  it("reads the first maxPerMessage files and names the rest as skipped", async () => {
    const { reader: r } = reader({ config: { maxPerMessage: 1 } });
    const read = await r.read([message([file("a.txt", "first"), file("b.txt", "second")])], context);
    expect(read?.stored.map((stored) => stored.name)).toEqual(["a.txt"]);
    expect(read?.modelText).toContain(
      "[File attached: b.txt — not read: only the first 1 files of a message are read]",
    );
  });

  it("describes images to a text-only model and tells the sender once per conversation", async () => {
    const { reader: r } = reader({});
    const textOnly = { ...context, imagesAccepted: false };
    const first = await r.read([message([file("shot.png", PNG_1X1)])], textOnly);
    const second = await r.read([message([file("shot2.png", PNG_1X1)])], textOnly);
    expect(first?.images).toEqual([]);
    expect(first?.modelText).toContain("not read: the model I run on cannot see images");
    expect(first?.notices).toHaveLength(1);
    expect(second?.notices).toEqual([]);
  });
});
