/**
 * Shortening markdown without breaking it: a cut never falls inside a code span, a link or image,
 * an autolink or a bare URL, and a sentence never ends at a dot inside one (`example.com`). A link
 * cut to `[link](https://example.` renders as a wrong link; a half code span swallows what follows.
 */

/** Inline markdown that must stay whole. */
const WHOLE_SPANS =
  /(`+)[\s\S]*?\1|!?\[[^\]\n]*\]\([^)\s]*(?:\s+"[^"\n]*")?\)|<https?:\/\/[^>\s]+>|https?:\/\/[^\s<>()[\]]+/g;

function wholeSpans(text: string): [number, number][] {
  return [...text.matchAll(WHOLE_SPANS)].map((match) => [match.index, match.index + match[0].length]);
}

function spanAround(spans: readonly [number, number][], at: number): [number, number] | undefined {
  return spans.find(([start, end]) => start < at && at < end);
}

/** The first `count` sentences, whitespace collapsed; a sentence ends at `.`, `!` or `?` before a space. */
export function firstSentences(text: string, count: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const spans = wholeSpans(flat);
  let found = 0;
  for (const match of flat.matchAll(/[.!?]+(?= |$)/g)) {
    const end = match.index + match[0].length;
    if (spanAround(spans, match.index + 1)) continue;
    found++;
    if (found === count) return flat.slice(0, end).trim();
  }
  return flat;
}

/** At most `max` characters, ending in `…` when cut; the cut moves back to before a span it would split. */
export function clipMarkdown(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const span = spanAround(wholeSpans(text), cut);
  if (span) cut = span[0];
  return `${text.slice(0, cut).trimEnd()}…`;
}
