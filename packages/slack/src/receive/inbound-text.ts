/** What the text reader needs to know about the bot. */
export interface BotMentionFacts {
  readonly botUserId: string;
  /** How the bot is written when a mention of it stays in the text. */
  readonly botName: string;
  /** Words that, right after a leading mention, mean a command. */
  readonly commandWords: readonly string[];
}

export interface ReadText {
  readonly text: string;
  /** The text mentions the bot anywhere (`<@BOT>` or `<@BOT|name>`). */
  readonly mentionsBot: boolean;
}

const ENTITY = /<([^<>]+)>/g;

/** One Slack `<…>` entity as a reader would write it in plain text (markdown links for labelled URLs). */
function readEntity(inner: string, bot: BotMentionFacts): string {
  const bar = inner.indexOf("|");
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : inner.slice(bar + 1);
  if (target.startsWith("@")) {
    const user = target.slice(1);
    return user === bot.botUserId ? `@${bot.botName}` : `@${label ?? user}`;
  }
  if (target.startsWith("#")) return `#${label ?? target.slice(1)}`;
  if (target.startsWith("!")) {
    const special = target.slice(1);
    if (label) return label;
    const [word] = special.split("^");
    return `@${word}`;
  }
  if (target.startsWith("mailto:")) return label ?? target.slice("mailto:".length);
  return label && label !== target ? `[${label}](${target})` : target;
}

function unescapeEntities(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/**
 * Slack message text → the plain text the team reads: mentions, channels and links written out,
 * HTML entities decoded. A leading mention of the bot is dropped, and `@bot word args` with a
 * known command word becomes `/word args` — Slack keeps text starting with `/` for itself.
 */
export function readInboundText(raw: string, bot: BotMentionFacts): ReadText {
  const mentionPattern = new RegExp(`<@${bot.botUserId}(\\|[^>]*)?>`);
  const mentionsBot = mentionPattern.test(raw);
  const leading = new RegExp(`^\\s*<@${bot.botUserId}(\\|[^>]*)?>[\\s,:]*`);
  const addressed = leading.test(raw);
  const body = addressed ? raw.replace(leading, "") : raw;
  const text = unescapeEntities(body.replace(ENTITY, (_, inner: string) => readEntity(inner, bot))).trim();
  if (!addressed) return { text, mentionsBot };
  const match = /^([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text);
  const word = match?.[1]?.toLowerCase();
  if (word && bot.commandWords.includes(word)) {
    const args = match?.[2]?.trim();
    return { text: args ? `/${word} ${args}` : `/${word}`, mentionsBot };
  }
  return { text, mentionsBot };
}
