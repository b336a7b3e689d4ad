const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Lone surrogates (a model cutting an emoji in half) do not survive the Web API client's form
 * encoding: they arrive in Slack as a different character. They are sent as U+FFFD, as a browser
 * would (String.prototype.toWellFormed, which our TypeScript lib target does not declare yet).
 */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD");
}
