import { Marked, type MarkedExtension } from "marked";
import { markedTerminal } from "marked-terminal";

/**
 * Renders an answer's markdown for a terminal — bold, code, lists, links, tables — the way chat
 * platforms render it, instead of printing `**billing**`. Only for an interactive terminal:
 * piped output stays the plain text the team wrote.
 */
export function createTerminalMarkdown(width: number | undefined): (markdown: string) => string {
  // One parser per console, so the global `marked` instance stays untouched.
  const marked = new Marked(
    // The type package describes the renderer, not the extension object the function returns.
    markedTerminal({ reflowText: false, width: width ?? 80, tab: 2 }) as unknown as MarkedExtension,
  );
  return (markdown) => {
    const rendered = marked.parse(markdown, { async: false });
    return rendered.replace(/\n+$/, "");
  };
}
