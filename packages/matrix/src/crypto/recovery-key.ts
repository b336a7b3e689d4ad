import { randomBytes } from "node:crypto";
import bs58 from "bs58";

/**
 * Matrix's recovery key format (spec: "Key representation"): the 32-byte private key behind two
 * prefix bytes 0x8B 0x01 and a parity byte (the XOR of every byte before it), in base58, shown in
 * groups of four. Element calls it the "Security Key" or "Recovery Key"; spaces are ignored.
 */
const PREFIX = [0x8b, 0x01] as const;
const KEY_BYTES = 32;

export class RecoveryKeyError extends Error {
  constructor(detail: string) {
    super(`not a Matrix recovery key: ${detail}`);
    this.name = "RecoveryKeyError";
  }
}

export function decodeRecoveryKey(text: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(text.replace(/\s+/g, ""));
  } catch {
    throw new RecoveryKeyError("it has characters base58 does not use (0, O, I, l, or punctuation)");
  }
  if (bytes.length !== PREFIX.length + KEY_BYTES + 1)
    throw new RecoveryKeyError(`it is ${bytes.length} bytes long, not ${PREFIX.length + KEY_BYTES + 1}`);
  if (bytes[0] !== PREFIX[0] || bytes[1] !== PREFIX[1]) throw new RecoveryKeyError("its prefix is wrong");
  if (bytes.reduce((parity, byte) => parity ^ byte, 0) !== 0)
    throw new RecoveryKeyError("its parity check fails (a character is mistyped)");
  return bytes.slice(PREFIX.length, PREFIX.length + KEY_BYTES);
}

export function encodeRecoveryKey(key: Uint8Array): string {
  if (key.length !== KEY_BYTES) throw new RecoveryKeyError(`a key is ${KEY_BYTES} bytes, not ${key.length}`);
  const body = Uint8Array.from([...PREFIX, ...key]);
  const parity = body.reduce((value, byte) => value ^ byte, 0);
  const encoded = bs58.encode(Uint8Array.from([...body, parity]));
  return encoded.match(/.{1,4}/g)?.join(" ") ?? encoded;
}

/** A new random recovery key, as operators write it into `matrix.encryption.recoveryKey`. */
export function newRecoveryKey(): string {
  return encodeRecoveryKey(randomBytes(KEY_BYTES));
}
