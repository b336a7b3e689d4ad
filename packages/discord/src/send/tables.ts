/**
 * Discord renders no markdown tables: pipes and dashes arrive as they were typed. Tables become
 * an aligned block in a code fence when they are narrow enough to read on a phone, and a list of
 * `**first cell** — header: value` lines otherwise. Tables are found by the GFM parser Slack's
 * formatter uses (mdast), so both platforms agree on what is a table (fences, escaped pipes, a
 * delimiter row that does not match); only the table's own text is replaced, the rest stays as typed.
 */
import type { Root, Table as TableNode, TableRow } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toString as textOf } from "mdast-util-to-string";
import { gfm } from "micromark-extension-gfm";

/** Wider than this and an aligned block wraps on a phone screen; a list reads better. */
export const MAX_ALIGNED_WIDTH = 60;

type Alignment = "left" | "right" | "center";

interface Table {
  /** Each cell as typed (inline markdown kept), and as its words alone. */
  readonly header: Cell[];
  readonly alignments: Alignment[];
  readonly rows: Cell[][];
}

interface Cell {
  readonly typed: string;
  readonly plain: string;
}

function pad(text: string, width: number, alignment: Alignment): string {
  const room = width - text.length;
  if (alignment === "right") return text.padStart(width);
  if (alignment === "center")
    return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(Math.ceil(room / 2));
  return text.padEnd(width);
}

function renderAligned(table: Table): string[] | null {
  const plain = [table.header, ...table.rows].map((row) => row.map((cell) => cell.plain));
  const widths = table.header.map((_, column) =>
    Math.max(1, ...plain.map((row) => row[column]?.length ?? 0)),
  );
  const totalWidth = widths.reduce((sum, width) => sum + width, 0) + 2 * (widths.length - 1);
  if (totalWidth > MAX_ALIGNED_WIDTH) return null;
  const line = (row: string[]) =>
    widths
      .map((width, column) => pad(row[column] ?? "", width, table.alignments[column] ?? "left"))
      .join("  ")
      .trimEnd();
  const [header = [], ...rows] = plain;
  return ["```", line(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line), "```"];
}

function renderList(table: Table): string[] {
  return table.rows.map((row) => {
    const [first = "", ...rest] = row.map((cell) => cell.typed);
    const details = rest
      .map((cell, index) => {
        const label = table.header[index + 1]?.typed ?? "";
        return cell === "" ? "" : label === "" ? cell : `${label}: ${cell}`;
      })
      .filter((detail) => detail !== "");
    const lead = first === "" ? "-" : `- **${first}**`;
    return details.length === 0 ? lead : `${lead} — ${details.join(" · ")}`;
  });
}

function cellsOf(row: TableRow | undefined, markdown: string, columns: number): Cell[] {
  const cells = (row?.children ?? []).slice(0, columns).map((cell): Cell => {
    const first = cell.children[0]?.position?.start.offset;
    const last = cell.children.at(-1)?.position?.end.offset;
    const typed = first === undefined || last === undefined ? "" : markdown.slice(first, last);
    return { typed: typed.trim().replaceAll("\\|", "|"), plain: textOf(cell).trim() };
  });
  return cells;
}

function tableOf(node: TableNode, markdown: string): Table {
  const [head, ...body] = node.children;
  const header = cellsOf(head, markdown, Number.POSITIVE_INFINITY);
  return {
    header,
    alignments: node.align?.map((align) => align ?? "left") ?? [],
    rows: body.map((row) => cellsOf(row, markdown, header.length)),
  };
}

export function degradeTables(markdown: string): string {
  if (!markdown.includes("|")) return markdown;
  const tree: Root = fromMarkdown(markdown, {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  });
  let out = "";
  let from = 0;
  // Top-level tables only: one inside a list or a quote would lose its indentation as a block.
  for (const node of tree.children) {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (node.type !== "table" || start === undefined || end === undefined) continue;
    const table = tableOf(node, markdown);
    out += markdown.slice(from, start) + (renderAligned(table) ?? renderList(table)).join("\n");
    from = end;
  }
  return out + markdown.slice(from);
}
