const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Text shown while an answer is still being written: the text so far with any code block it opened
 * closed (so the rest does not render as code), and the progress line, in italics, under it.
 */
export function previewText(text: string, progress: string | undefined): string {
  const body = closeOpenFence(text.trimEnd());
  if (progress === undefined) return body;
  const line = `_${progress.replaceAll("_", "\\_")}_`;
  return body === "" ? line : `${body}\n\n${line}`;
}

/** Appends the closing fence of a code block the text leaves open. */
export function closeOpenFence(text: string): string {
  let open: string | undefined;
  for (const line of text.split("\n")) {
    const fence = FENCE.exec(line)?.[1];
    if (fence === undefined) continue;
    if (open === undefined) open = fence;
    else if (fence[0] === open[0] && fence.length >= open.length && line.trim() === fence) open = undefined;
  }
  return open === undefined ? text : `${text}\n${open}`;
}
