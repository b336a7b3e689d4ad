import { createDecipheriv, createHash, timingSafeEqual } from "node:crypto";
import { AttachmentDecryptionError, attachmentKeys } from "../crypto/attachments.ts";

/**
 * An encrypted room's file (an EncryptedFile: AES-256-CTR, SHA-256 of the ciphertext) decrypted as
 * it downloads. decryptAttachment takes the whole ciphertext at once; here the file streams — CTR
 * decrypts chunk by chunk — so a download stops at the reader's size cap and memory holds one chunk,
 * whatever the file's size. The hash is checked when the download ends: a mismatch throws then, and
 * the blob store drops what it was writing, so plaintext that was not verified is never kept or read.
 * The description is checked (attachmentKeys) before the first byte is fetched.
 */
export function decryptingStream(
  ciphertext: AsyncIterable<Uint8Array>,
  file: unknown,
): AsyncIterable<Uint8Array> {
  const { key, iv, sha256 } = attachmentKeys(file);
  return (async function* () {
    const hash = createHash("sha256");
    const decipher = createDecipheriv("aes-256-ctr", key, iv);
    for await (const chunk of ciphertext) {
      hash.update(chunk);
      const plain = decipher.update(chunk);
      if (plain.byteLength > 0) yield plain;
    }
    const rest = decipher.final();
    if (!timingSafeEqual(hash.digest(), sha256))
      throw new AttachmentDecryptionError("the downloaded file does not match its SHA-256 hash");
    if (rest.byteLength > 0) yield rest;
  })();
}
