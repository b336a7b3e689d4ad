/**
 * Why an encrypted room event could not be read, and what follows from it:
 * - `wait`: its key has not arrived (yet): the event is kept and read when the key comes;
 * - `refused`: the sender's device does not meet `matrix.encryption.trust` — no key changes that;
 * - `unreadable`: the event or its key is broken or forged; nothing will make it readable.
 */
export type FailureKind = "wait" | "refused" | "unreadable";

/** Label of the decryption-failures metric. */
export type FailureReason =
  | "missing_key"
  | "unknown_message_index"
  | "withheld"
  | "unverified_device"
  | "invalid";

export interface DecryptionFailure {
  readonly kind: FailureKind;
  readonly reason: FailureReason;
  /** What the crypto said, for the log. */
  readonly detail: string;
  /** The sender's client told us it withholds the key, and why (`m.unverified`: our device is not verified). */
  readonly withheld?: string;
}

/**
 * The WASM crypto's `DecryptionErrorCode`, by number (its enum is a value of the WASM module, which
 * this pure decision does not load).
 */
const CODES: Readonly<Record<number, { kind: FailureKind; reason: FailureReason }>> = {
  0: { kind: "wait", reason: "missing_key" }, // MissingRoomKey
  1: { kind: "wait", reason: "unknown_message_index" }, // UnknownMessageIndex: a forwarded key may start earlier
  2: { kind: "unreadable", reason: "invalid" }, // MismatchedIdentityKeys
  3: { kind: "refused", reason: "unverified_device" }, // UnknownSenderDevice
  4: { kind: "refused", reason: "unverified_device" }, // UnsignedSenderDevice
  5: { kind: "refused", reason: "unverified_device" }, // SenderIdentityVerificationViolation
  6: { kind: "unreadable", reason: "invalid" }, // UnableToDecrypt
  7: { kind: "unreadable", reason: "invalid" }, // MismatchedSender
};

/** Reads the crypto's error (a `MegolmDecryptionError`, or anything else thrown on the way). */
export function classifyDecryptionFailure(error: unknown): DecryptionFailure {
  const code = readField(error, "code");
  const detail = String(readField(error, "description") ?? (error instanceof Error ? error.message : error));
  const known = typeof code === "number" ? CODES[code] : undefined;
  if (!known) return { kind: "unreadable", reason: "invalid", detail };
  const withheld = readField(error, "maybe_withheld");
  if (known.kind === "wait" && typeof withheld === "string" && withheld !== "") {
    // The sender's client said it will not send the key: waiting cannot help, the notice can.
    return { kind: "wait", reason: "withheld", detail, withheld };
  }
  return { ...known, detail };
}

function readField(error: unknown, field: string): unknown {
  return typeof error === "object" && error !== null ? (error as Record<string, unknown>)[field] : undefined;
}
