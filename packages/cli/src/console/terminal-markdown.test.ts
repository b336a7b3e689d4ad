import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { createTerminalMarkdown } from "./terminal-markdown.ts";

describe("createTerminalMarkdown", () => {
  const render = createTerminalMarkdown(80);

  it("renders bold, inline code and lists instead of printing the markup", () => {
    const out = render("Ask **billing** about `invoice-42`:\n\n- first\n- second");
    const plain = stripVTControlCharacters(out);
    expect(plain).not.toContain("**");
    expect(plain).toContain("billing");
    expect(plain).toContain("invoice-42");
    expect(plain).toMatch(/\* first\n\s*\* second|• first/);
    // Bold is shown as a terminal does it (SGR 1), when colours are on.
    const ESC = String.fromCharCode(27);
    if (out !== plain) expect(out).toContain(`${ESC}[1mbilling${ESC}[22m`);
  });

  it("keeps a fenced code block's content", () => {
    const plain = stripVTControlCharacters(render("```\nconst x = 1;\n```"));
    expect(plain).toContain("const x = 1;");
    expect(plain).not.toContain("```");
  });
});
