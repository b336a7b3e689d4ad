import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from "node:crypto";

/*
 * Files in encrypted rooms (the Matrix spec's "Sending encrypted attachments"): AES-256-CTR with a
 * fresh key and IV per file, the SHA-256 of the ciphertext to check what is downloaded, described
 * by an EncryptedFile in the event (`file` instead of `url`). Written on node:crypto rather than
 * the WASM's Attachment: the format is a few lines, works on buffers of any size without copying
 * into WASM memory, and its failures can say exactly what is wrong with a file.
 */

/** The JSON Web Key of an attachment, as the spec fixes it. */
export interface AttachmentKey {
  readonly kty: "oct";
  readonly key_ops: readonly string[];
  readonly alg: "A256CTR";
  /** The key, base64url without padding. */
  readonly k: string;
  readonly ext: true;
}

/** An EncryptedFile without its `url` (which the upload gives). */
export interface EncryptedFileInfo {
  readonly v: "v2";
  readonly key: AttachmentKey;
  /** 16 bytes, the last 8 zero (the block counter), unpadded base64. */
  readonly iv: string;
  /** SHA-256 of the ciphertext, unpadded base64. */
  readonly hashes: { readonly sha256: string };
}

/** What an event carries for an encrypted file: the info plus the `mxc://` URL. */
export interface EncryptedFile extends EncryptedFileInfo {
  readonly url: string;
}

/** An encrypted file that cannot be read: bad description, or the download does not match it. */
export class AttachmentDecryptionError extends Error {
  constructor(reason: string) {
    super(`cannot decrypt the attachment: ${reason}`);
    this.name = "AttachmentDecryptionError";
  }
}

const unpadded = (bytes: Buffer) => bytes.toString("base64").replace(/=+$/, "");

/** Encrypts a file for an encrypted room: upload `data`, then send `info` with the upload's URL as `file`. */
export function encryptAttachment(plaintext: Uint8Array): { data: Buffer; info: EncryptedFileInfo } {
  const key = randomBytes(32);
  // The upper 8 bytes random, the lower 8 (the counter) zero: clients that count with a 64-bit
  // counter (as the spec's reference code does) never wrap.
  const iv = Buffer.concat([randomBytes(8), Buffer.alloc(8)]);
  const cipher = createCipheriv("aes-256-ctr", key, iv);
  const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return {
    data,
    info: {
      v: "v2",
      key: {
        kty: "oct",
        key_ops: ["encrypt", "decrypt"],
        alg: "A256CTR",
        k: key.toString("base64url"),
        ext: true,
      },
      iv: unpadded(iv),
      hashes: { sha256: unpadded(createHash("sha256").update(data).digest()) },
    },
  };
}

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

function decodeBase64(text: unknown, what: string, bytes: number): Buffer {
  if (typeof text !== "string" || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(text))
    throw new AttachmentDecryptionError(`${what} is not base64`);
  const decoded = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (decoded.length !== bytes)
    throw new AttachmentDecryptionError(`${what} is ${decoded.length} bytes, not ${bytes}`);
  return decoded;
}

/** The key, IV and expected SHA-256 of an EncryptedFile, checked; refuses a bad description with the reason. */
export function attachmentKeys(file: unknown): { key: Buffer; iv: Buffer; sha256: Buffer } {
  const version = field(file, "v");
  if (version !== undefined && version !== "v2")
    throw new AttachmentDecryptionError(`unsupported version ${JSON.stringify(version)}`);
  const key = field(file, "key");
  if (field(key, "alg") !== "A256CTR" || field(key, "kty") !== "oct")
    throw new AttachmentDecryptionError("the key is not an A256CTR octet key");
  return {
    key: decodeBase64(field(key, "k"), "the key", 32),
    iv: decodeBase64(field(file, "iv"), "the IV", 16),
    sha256: decodeBase64(field(field(file, "hashes"), "sha256"), "the SHA-256 hash", 32),
  };
}

/**
 * Checks `ciphertext` against the file's SHA-256 and decrypts it. Accepts the versions clients
 * send (`v2`, and the older unversioned form), refuses anything else with the reason.
 */
export function decryptAttachment(ciphertext: Uint8Array, file: unknown): Buffer {
  const { key, iv, sha256 } = attachmentKeys(file);
  const actual = createHash("sha256").update(ciphertext).digest();
  if (!timingSafeEqual(actual, sha256))
    throw new AttachmentDecryptionError("the downloaded file does not match its SHA-256 hash");
  const decipher = createDecipheriv("aes-256-ctr", key, iv);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}
