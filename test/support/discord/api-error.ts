/** An error the stand-in answers the way Discord does: HTTP status plus a JSON error code. */
export class DiscordApiError extends Error {
  readonly status: number;
  readonly code: number;
  readonly errors?: unknown;
  constructor(status: number, code: number, message: string, errors?: unknown) {
    super(message);
    this.status = status;
    this.code = code;
    this.errors = errors;
  }

  body(): Record<string, unknown> {
    return {
      message: this.message,
      code: this.code,
      ...(this.errors === undefined ? {} : { errors: this.errors }),
    };
  }
}

export const unknownChannel = () => new DiscordApiError(404, 10003, "Unknown Channel");
export const unknownGuild = () => new DiscordApiError(404, 10004, "Unknown Guild");
export const unknownMessage = () => new DiscordApiError(404, 10008, "Unknown Message");
export const unknownInteraction = () => new DiscordApiError(404, 10062, "Unknown interaction");
export const unknownWebhook = () => new DiscordApiError(404, 10015, "Unknown Webhook");
export const unauthorized = () => new DiscordApiError(401, 0, "401: Unauthorized");

export function invalidFormBody(field: string, code: string, message: string): DiscordApiError {
  return new DiscordApiError(400, 50035, "Invalid Form Body", { [field]: { _errors: [{ code, message }] } });
}

/** 429 as Discord sends it: discord.js waits `retry_after` seconds and sends the request again. */
export class RateLimitedError extends DiscordApiError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterMs: number) {
    super(429, 0, "You are being rate limited.");
    this.retryAfterSeconds = Math.max(retryAfterMs, 1) / 1000;
  }

  override body(): Record<string, unknown> {
    return { message: this.message, retry_after: this.retryAfterSeconds, global: false };
  }
}
