/**
 * Text that must reach Slack as text. Slack reads `&`, `<` and `>` as control characters — `<!channel>`,
 * `<@U123>` and `<!subteam^…>` are pings — so they are always escaped. Broadcast words written
 * plainly (`@here`) only ping with `link_names`, which we never set; a word joiner after the `@`
 * keeps them inert even if a client links them.
 */
export function escapeText(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replace(/@(channel|here|everyone)\b/gi, "@\u2060$1");
}

const SAFE_SCHEMES = /^(https?:|mailto:)/i;

/**
 * A link Slack will render, or undefined when the destination is not a web or mail address —
 * a markdown link to `!channel` or `@U123` must never become `<!channel|…>`.
 */
export function slackLink(url: string, label: string): string | undefined {
  if (!SAFE_SCHEMES.test(url)) return undefined;
  // Characters that would end or split the `<url|label>` entity are percent-encoded.
  const target = url.replace(/[<>|\s]/g, (c) => encodeURIComponent(c)).replaceAll("&", "&amp;");
  const text = escapeText(label.replaceAll("|", "¦")).trim();
  return text === "" || label === url ? `<${target}>` : `<${target}|${text}>`;
}

/**
 * The last line of defence before anything is posted: no `<!…>`, `<@…>`, `<#…>` entity survives
 * unless it came from `slackLink`. Model output is converted before it gets here; this catches a
 * future formatting path that forgets to escape.
 */
export function neutralizeMentions(mrkdwn: string): string {
  return mrkdwn.replace(/<(?=[!@#])/g, "&lt;");
}
