const REDACTED = "[redacted]";

/** Field names whose values are secrets wherever they appear in a log line. */
const SECRET_FIELD = /(token|secret|password|passwd|api[-_]?key|authorization|signature|cookie)/i;

/** Secrets recognizable by their shape, whatever the configuration says. */
const SECRET_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // user:password@ in URLs (store URLs, model base URLs)
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@"]*:)[^@\s/"]+@/gi, `$1${REDACTED}@`],
  [/\b(Bearer|Bot|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED}`],
  [/\bxox[abposr]-[A-Za-z0-9-]{8,}/g, REDACTED],
  [/\bxapp-[A-Za-z0-9-]{8,}/g, REDACTED],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\bsyt_[A-Za-z0-9_]{8,}/g, REDACTED],
  [/\bv0=[a-f0-9]{32,}/g, REDACTED],
];

/**
 * Removes secrets from log output: the configured ones (tokens, keys, passwords, webhook secrets)
 * wherever they appear, anything shaped like a well-known credential, and every value of a field
 * named like a secret. Secrets shorter than 6 characters are not searched for (they would match
 * ordinary words); configuration validation keeps real ones longer.
 */
export class SecretRedactor {
  readonly #secrets: readonly string[];

  constructor(secrets: Iterable<string> = []) {
    this.#secrets = [...new Set([...secrets].filter((secret) => secret.length >= 6))].sort(
      (a, b) => b.length - a.length,
    );
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.#secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
    return out;
  }

  /** A deep copy of `value` with every secret replaced; errors become plain objects with their stack. */
  value(value: unknown, depth = 0): unknown {
    if (typeof value === "string") return this.text(value);
    if (value === null || typeof value !== "object" || depth > 8) return value;
    if (value instanceof Error) {
      const cause: unknown = (value as Error & { cause?: unknown }).cause;
      return this.value(
        {
          type: value.name,
          message: value.message,
          stack: value.stack,
          ...(cause === undefined ? {} : { cause }),
        },
        depth + 1,
      );
    }
    if (Array.isArray(value)) return value.map((item) => this.value(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      out[key] =
        SECRET_FIELD.test(key) && typeof field === "string" ? REDACTED : this.value(field, depth + 1);
    }
    return out;
  }
}
