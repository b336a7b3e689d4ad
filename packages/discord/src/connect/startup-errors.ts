/** Why the bot could not connect, in words an operator can act on. */
export type StartupFailure =
  | "invalid-token"
  | "disallowed-intents"
  | "invalid-intents"
  | "unreachable"
  | "unknown";

export class DiscordStartupError extends Error {
  readonly failure: StartupFailure;
  constructor(failure: StartupFailure, message: string, cause: unknown) {
    super(message, { cause });
    this.name = "DiscordStartupError";
    this.failure = failure;
  }
}

const PORTAL = "https://discord.com/developers/applications";

const MESSAGES: Record<StartupFailure, string> = {
  "invalid-token":
    'Discord rejected the bot token (HTTP 401 / gateway close 4004 "authentication failed"). ' +
    `Open ${PORTAL} → your application → Bot → Reset Token, and put the new token in discord.token ` +
    "(or SWITCHBOARD_DISCORD_TOKEN). The token is the bot's, not the application id or client secret.",
  "disallowed-intents":
    'Discord refused the Message Content intent (gateway close 4014 "disallowed intents"). ' +
    `Open ${PORTAL} → your application → Bot → Privileged Gateway Intents, switch on MESSAGE CONTENT INTENT ` +
    "and save; without it the bot cannot read what people write.",
  "invalid-intents":
    "Discord rejected the gateway intents as invalid (gateway close 4013); this is a bug in Switchboard.",
  unreachable: "Could not reach Discord",
  unknown: "Could not connect to Discord",
};

/** Close codes after which Discord will not accept the same login again. */
const FAILURE_BY_CLOSE_CODE: Record<number, StartupFailure> = {
  4004: "invalid-token",
  4013: "invalid-intents",
  4014: "disallowed-intents",
};

/** What discord.js and @discordjs/ws throw for each, by their own codes and messages. */
function failureOf(error: unknown, closeCode: number | undefined): StartupFailure {
  if (closeCode !== undefined && FAILURE_BY_CLOSE_CODE[closeCode]) return FAILURE_BY_CLOSE_CODE[closeCode];
  if (!(error instanceof Error)) return "unknown";
  const { code, status } = error as Error & { code?: unknown; status?: unknown };
  if (code === "TokenInvalid" || status === 401 || error.message === "Authentication failed")
    return "invalid-token";
  if (error.message === "Used disallowed intents") return "disallowed-intents";
  if (error.message === "Used invalid intents") return "invalid-intents";
  const causeCode = (error.cause as { code?: unknown } | undefined)?.code ?? code;
  if (
    typeof causeCode === "string" &&
    /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|UND_ERR_)/.test(causeCode)
  ) {
    return "unreachable";
  }
  return "unknown";
}

/** A start-up failure Switchboard detected itself (e.g. the intent flag read over REST). */
export function startupFailure(
  failure: Exclude<StartupFailure, "unreachable" | "unknown">,
): DiscordStartupError {
  return new DiscordStartupError(failure, MESSAGES[failure], undefined);
}

/** Turns whatever login threw (plus the gateway close code, when one was seen) into one clear error. */
export function explainStartupError(
  error: unknown,
  options: { apiUrl: string; closeCode?: number },
): DiscordStartupError {
  if (error instanceof DiscordStartupError) return error;
  const failure = failureOf(error, options.closeCode);
  const detail = error instanceof Error ? error.message : String(error);
  const message =
    failure === "unreachable" || failure === "unknown"
      ? `${MESSAGES[failure]} at ${options.apiUrl}: ${detail}`
      : MESSAGES[failure];
  return new DiscordStartupError(failure, message, error);
}
