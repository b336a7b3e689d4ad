import type { FileToSend } from "@switchboard/core/adapter";
import { describe, expect, it } from "vitest";
import { AttachmentDecryptionError, decryptAttachment, encryptAttachment } from "../crypto/attachments.ts";
import { decryptingStream } from "./decrypting-stream.ts";
import { MatrixMedia, offersAuthenticatedMedia } from "./matrix-media.ts";

async function* chunked(bytes: Buffer, size: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe("Matrix media", () => {
  it.each([
    [{ versions: ["v1.1", "v1.11"] }, true],
    [{ versions: ["v1.12"] }, true],
    [{ versions: ["r0.6.1", "v1.5"] }, false],
    [{ versions: ["v1.5"], unstable_features: { "org.matrix.msc3916.stable": true } }, true],
    [{ versions: ["v1.5"], unstable_features: { "org.matrix.msc3916": true } }, false],
    [undefined, false],
  ])("versions %j offer authenticated media: %s", (versions, expected) => {
    expect(offersAuthenticatedMedia(versions)).toBe(expected);
  });

  it("decrypts an encrypted file chunk by chunk", async () => {
    const plain = Buffer.from("a file of some length ".repeat(5_000));
    const { data, info } = encryptAttachment(plain);
    expect(await collect(decryptingStream(chunked(data, 7_000), info))).toEqual(plain);
  });

  it("refuses a file whose bytes do not match the hash, and a description with a bad key, before reading", async () => {
    const { data, info } = encryptAttachment(Buffer.from("hello"));
    const tampered = Buffer.from(data);
    tampered[0] = (tampered[0] ?? 0) ^ 1;
    await expect(collect(decryptingStream(chunked(tampered, 2), info))).rejects.toThrow(
      "the downloaded file does not match its SHA-256 hash",
    );
    await expect(collect(decryptingStream(chunked(data.subarray(0, 3), 2), info))).rejects.toThrow(
      AttachmentDecryptionError,
    );
    expect(() => decryptingStream(chunked(data, 2), { ...info, key: { ...info.key, k: "short" } })).toThrow(
      /the key is 3 bytes, not 32/,
    );
  });

  it.each([true, false])(
    "uploads a file (room encrypted: %s) and shows it as one event carrying the upload",
    async (encrypted) => {
      const uploads: { data: Buffer; type: string | undefined; name: string | undefined }[] = [];
      const posted: Record<string, unknown>[] = [];
      const client = {
        homeserverUrl: "https://hs.example",
        accessToken: "token",
        doRequest: async () => ({ versions: ["v1.11"] }),
        uploadContent: async (data: Buffer, type?: string, name?: string) => {
          uploads.push({ data, type, name });
          return "mxc://hs.example/up1";
        },
      };
      const poster = {
        postContent: async (_target: unknown, content: Record<string, unknown>, key: string) => {
          posted.push({ ...content, key });
          return { id: "$file", conversation: { platform: "matrix", path: ["!r:hs"] } };
        },
      };
      const media = new MatrixMedia(
        client as unknown as ConstructorParameters<typeof MatrixMedia>[0],
        { isEncrypted: async () => encrypted },
        poster,
      );
      const csv = Buffer.from("a,b\n1,2\n");
      const file: FileToSend = {
        name: "data.csv",
        mediaType: "text/csv",
        size: csv.byteLength,
        open: async () => ReadableStream.from([new Uint8Array(csv)]),
      };
      const conversation = { platform: "matrix", path: ["!r:hs"] };
      const upload = await media.files.upload(conversation, file);
      await media.files.post({ conversation, file, upload, idempotencyKey: "w:0:1" });
      const [sent] = uploads;
      const [event] = posted;
      expect(event).toMatchObject({
        msgtype: "m.file",
        body: "data.csv",
        info: { mimetype: "text/csv" },
        key: "w:0:1",
      });
      if (encrypted) {
        // Only ciphertext, under no name, reaches the homeserver; the keys travel in the (encrypted) event.
        expect(sent).toMatchObject({ type: "application/octet-stream", name: undefined });
        expect(event?.url).toBeUndefined();
        expect(decryptAttachment(sent!.data, event?.file)).toEqual(csv);
      } else {
        expect(sent).toEqual({ data: csv, type: "text/csv", name: "data.csv" });
        expect(event?.url).toBe("mxc://hs.example/up1");
      }
    },
  );
});
