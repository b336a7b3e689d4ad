/**
 * Splits markdown into chunks of at most `limit` characters without ever breaking a code block:
 * a fence open at a cut is closed at the end of the chunk and reopened (same info string) at the
 * start of the next, so every chunk renders on its own. Nothing is dropped — concatenating the
 * chunks' contents (minus the added fence lines) gives back the text.
 */
export const MIN_CHUNK_LIMIT = 64;

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

interface OpenFence {
  /** The line that opened it, repeated to reopen it in the next chunk. */
  opening: string;
  /** The run of backticks or tildes that closes it. */
  marker: string;
}

function fenceAfter(line: string, open: OpenFence | null): OpenFence | null {
  const match = FENCE.exec(line);
  if (!match) return open;
  const run = match[1] ?? "";
  if (!open) return { opening: line.trimStart(), marker: run };
  const closes =
    run[0] === open.marker[0] && run.length >= open.marker.length && (match[2] ?? "").trim() === "";
  return closes ? null : open;
}

function closingSuffix(open: OpenFence | null): string {
  return open ? `\n${open.marker}` : "";
}

/** Cuts one over-long line into pieces of at most `width`, preferring spaces, never splitting a surrogate pair. */
function splitLongLine(line: string, width: number): string[] {
  const pieces: string[] = [];
  let rest = line;
  while (rest.length > width) {
    let cut = rest.lastIndexOf(" ", width);
    if (cut < width / 2) cut = width;
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  pieces.push(rest);
  return pieces;
}

export function chunkMarkdown(text: string, limit: number): string[] {
  if (limit < MIN_CHUNK_LIMIT) throw new RangeError(`chunk limit ${limit} is below ${MIN_CHUNK_LIMIT}`);
  const chunks: string[] = [];
  let current = "";
  let open: OpenFence | null = null;

  const flush = () => {
    if (current.trim() !== "") chunks.push(current + closingSuffix(open));
    current = open ? open.opening : "";
  };

  for (const line of text.replace(/\r\n/g, "\n").split("\n")) {
    const next = fenceAfter(line, open);
    const joined = current === "" ? line : `${current}\n${line}`;
    if (joined.length + closingSuffix(next).length <= limit) {
      current = joined;
      open = next;
      continue;
    }
    flush();
    // Room left for this line in a fresh chunk, after a reopened fence and before its closing.
    const reserved = (current === "" ? 0 : current.length + 1) + closingSuffix(open ?? next).length;
    for (const piece of splitLongLine(line, Math.max(1, limit - reserved))) {
      const candidate = current === "" ? piece : `${current}\n${piece}`;
      if (candidate.length + closingSuffix(open ?? next).length > limit) flush();
      current = current === "" ? piece : `${current}\n${piece}`;
    }
    open = next;
  }
  if (current.trim() !== "" && current !== open?.opening) chunks.push(current + closingSuffix(open));
  return chunks;
}
