import { isRecord } from "./matrix-event.ts";

export interface BotIdentity {
  readonly userId: string;
  /** The name users write to address the bot. */
  readonly displayName?: string;
}

const NAME_CHAR = "[\\p{L}\\p{N}_]";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function namePattern(name: string): RegExp {
  return new RegExp(`(?<!${NAME_CHAR})${escapeRegExp(name)}(?!${NAME_CHAR})`, "iu");
}

/** Every href in the HTML, URL-decoded (pills are `https://matrix.to/#/@bot:hs` or `matrix:u/bot:hs`). */
function linkTargets(html: string): string[] {
  return [...html.matchAll(/href\s*=\s*["']([^"']*)["']/gi)].map((match) => {
    try {
      return decodeURIComponent(match[1] ?? "");
    } catch {
      return match[1] ?? "";
    }
  });
}

function pillsBot(html: string, userId: string): boolean {
  const bare = userId.slice(1);
  return linkTargets(html).some(
    (target) =>
      target.endsWith(`matrix.to/#/${userId}`) ||
      target === `matrix:u/${bare}` ||
      target.startsWith(`matrix:u/${bare}?`),
  );
}

/**
 * The bot is mentioned when `m.mentions.user_ids` names it, a pill in `formatted_body` links to it,
 * or the plain body contains its MXID or display name as a word.
 */
export function mentionsBot(content: Readonly<Record<string, unknown>>, bot: BotIdentity): boolean {
  const mentions = content["m.mentions"];
  if (isRecord(mentions) && Array.isArray(mentions.user_ids) && mentions.user_ids.includes(bot.userId))
    return true;
  const html = content.formatted_body;
  if (typeof html === "string" && pillsBot(html, bot.userId)) return true;
  const body = typeof content.body === "string" ? content.body : "";
  if (body.includes(bot.userId)) return true;
  return (
    bot.displayName !== undefined &&
    bot.displayName.trim() !== "" &&
    namePattern(bot.displayName.trim()).test(body)
  );
}

/** `@switchboard:example.org` → `switchboard`: people address a bot by its user name too. */
function localpartOf(userId: string): string {
  const colon = userId.indexOf(":");
  return userId.slice(1, colon === -1 ? undefined : colon);
}

/**
 * `Switchboard: !reset` → `!reset`: a leading address (as clients write a pill into the plain body,
 * or as people type the MXID, display name or user name) is not part of what the user asks, and
 * commands must start the text.
 */
export function withoutLeadingAddress(body: string, bot: BotIdentity): string {
  const names = [bot.userId, bot.displayName?.trim(), localpartOf(bot.userId)].filter(
    (name): name is string => !!name,
  );
  for (const name of names) {
    const match = new RegExp(`^\\s*@?${escapeRegExp(name)}(?!${NAME_CHAR})\\s*[:,]?\\s*`, "iu").exec(body);
    if (match && match[0].length < body.length) return body.slice(match[0].length);
  }
  return body;
}

/**
 * Replies from older clients quote the replied-to message in the body (`> <@alice:hs> text` lines
 * and a blank line); that quote is not the user's question.
 */
export function withoutReplyFallback(body: string): string {
  const lines = body.split("\n");
  let index = 0;
  while (index < lines.length && lines[index]?.startsWith(">")) index++;
  if (index === 0) return body;
  if (lines[index] === "") index++;
  return lines.slice(index).join("\n");
}
