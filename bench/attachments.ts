import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type InboundMessage, openStore, silentLogger } from "@switchboard/core";
import { fetchPlatformFile } from "@switchboard/core/adapter";
import { attachmentsConfigSchema } from "@switchboard/core/config";
import { AttachmentReader, openBlobStore } from "@switchboard/core/host";
import { atMost, type Figure } from "./support/figures.ts";
import { median, round } from "./support/stats.ts";
import { tempDir } from "./support/temp-dir.ts";

const MB = 1024 * 1024;
const FILE_BYTES = 200 * MB;
const ROUNDS = 3;
const RSS_LIMIT_MB = 64;

/**
 * A platform's file host in its own process, so only the bot's side of the download counts in this
 * process's memory: `GET /file` streams FILE_BYTES (one random 256 KB chunk over and over), with
 * Content-Length, honouring backpressure.
 */
const FILE_HOST = `
const { createServer } = require("node:http");
const { randomBytes } = require("node:crypto");
const total = Number(process.argv[1]);
const chunk = randomBytes(256 * 1024);
const server = createServer((request, response) => {
  response.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(total) });
  let sent = 0;
  const write = () => {
    while (sent < total) {
      const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += part.length;
      if (!response.write(part)) return response.once("drain", write);
    }
    response.end();
  };
  write();
});
server.listen(0, "127.0.0.1", () => process.stdout.write(String(server.address().port) + "\\n"));
`;

async function startFileHost(): Promise<{ origin: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["-e", FILE_HOST, String(FILE_BYTES)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [data] = (await once(child.stdout!, "data")) as [Buffer];
  return { origin: `http://127.0.0.1:${data.toString().trim()}`, child };
}

/**
 * A 200 MB file through the path a person's upload takes: the adapter's download (fetchPlatformFile,
 * streamed) into the blob store beside SQLite (a folder), hashed as it goes, its head sniffed, all
 * driven by the AttachmentReader as a turn drives it. RSS is sampled every 5 ms during the download;
 * the rise over the RSS before it (after a warm-up download and a GC) is what the file costs in
 * memory. Throughput is the file's size over the wall time of the read.
 */
export async function measureAttachments(): Promise<Figure[]> {
  const host = await startFileHost();
  const dir = tempDir("attachments");
  const store = await openStore("memory://");
  const blobs = await openBlobStore({
    blobsUrl: pathToFileURL(join(dir.path, "attachments")).href,
    storeUrl: "memory://",
    cwd: dir.path,
    retainDays: 1,
  });
  try {
    const reader = new AttachmentReader({
      config: attachmentsConfigSchema.parse({ maxBytes: 256 * MB }),
      blobs,
      store,
      logger: silentLogger,
      sourceFor: () => ({
        open: (attachment, signal) =>
          fetchPlatformFile({
            url: String(attachment.ref.url),
            name: attachment.name,
            platform: "Bench",
            allowedOrigins: [host.origin],
            signal,
          }),
      }),
    });
    const read = (round: number) =>
      reader.read([message(round, `${host.origin}/file`)], {
        key: `bench:files:${round}`,
        signal: AbortSignal.timeout(120_000),
        imagesAccepted: true,
      });
    // Warm-up: modules loaded (file-type, the folder store), the first connection made.
    await read(-1);
    const rises: number[] = [];
    const speeds: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      globalThis.gc?.();
      const before = process.memoryUsage.rss();
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 5);
      const started = performance.now();
      const prepared = await read(round);
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage.rss());
      const kept = prepared?.stored[0];
      if (kept?.size !== FILE_BYTES) throw new Error(`the file was not kept whole (${kept?.size} bytes)`);
      rises.push((peak - before) / MB);
      speeds.push(FILE_BYTES / MB / seconds);
    }
    const peakRise = round(Math.max(...rises), 1);
    const note = `${ROUNDS} downloads of a ${FILE_BYTES / MB} MB file from a file host in another process, into the folder blob store; RSS sampled every 5 ms`;
    return [
      {
        key: "attachmentPeakRssMb",
        value: peakRise,
        unit: "MB",
        target: { text: `< +${RSS_LIMIT_MB} MB`, met: atMost(peakRise, RSS_LIMIT_MB) },
        note: `${note}; the largest rise over RSS before the download (rises: ${rises.map((r) => round(r, 1)).join(", ")} MB)`,
      },
      {
        key: "attachmentDownloadMBps",
        value: round(median(speeds), 0),
        unit: "MB/s",
        note: `${note}; median of ${speeds.map((s) => round(s, 0)).join(", ")} MB/s (download, SHA-256, write to disk, sniff)`,
      },
    ];
  } finally {
    host.child.kill();
    await blobs.close();
    await store.close();
    dir.remove();
  }
}

function message(round: number, url: string): InboundMessage {
  return {
    id: `m${round}`,
    conversation: { platform: "bench", path: ["files", String(round)] },
    author: { id: "u", isBot: false, isSelf: false },
    text: "",
    isDirect: true,
    mentionsBot: false,
    isEdit: false,
    sentAt: Date.now(),
    attachments: [{ name: "big.bin", declaredSize: FILE_BYTES, ref: { url } }],
  };
}
