/**
 * Discord renders no markdown tables: pipes and dashes arrive as they were typed. Tables become
 * an aligned block in a code fence when they are narrow enough to read on a phone, and a list of
 * `**first cell** — header: value` lines otherwise.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const DELIMITER_CELL = /^:?-+:?$/;
/** Wider than this and an aligned block wraps on a phone screen; a list reads better. */
export const MAX_ALIGNED_WIDTH = 60;

type Alignment = "left" | "right" | "center";

interface Table {
  readonly header: string[];
  readonly alignments: Alignment[];
  readonly rows: string[][];
}

function splitRow(line: string): string[] {
  let inner = line.trim();
  if (inner.startsWith("|")) inner = inner.slice(1);
  if (inner.endsWith("|") && !inner.endsWith("\\|")) inner = inner.slice(0, -1);
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replaceAll("\\|", "|"));
}

function isRow(line: string | undefined): line is string {
  return line?.includes("|") === true && line.trim() !== "";
}

function delimiterAlignments(line: string | undefined, columns: number): Alignment[] | null {
  if (!isRow(line)) return null;
  const cells = splitRow(line);
  if (cells.length !== columns || !cells.every((cell) => DELIMITER_CELL.test(cell))) return null;
  return cells.map((cell) => {
    if (cell.startsWith(":") && cell.endsWith(":")) return "center";
    return cell.endsWith(":") ? "right" : "left";
  });
}

/** Inline markdown shown literally inside a code block reads as noise; keep the words. */
function plainText(cell: string): string {
  return cell
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\*\*|__|~~|`/g, "")
    .trim();
}

function pad(text: string, width: number, alignment: Alignment): string {
  const room = width - text.length;
  if (alignment === "right") return text.padStart(width);
  if (alignment === "center")
    return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(Math.ceil(room / 2));
  return text.padEnd(width);
}

function renderAligned(table: Table): string[] | null {
  const plain = [table.header, ...table.rows].map((row) => row.map(plainText));
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
    const [first = "", ...rest] = row;
    const details = rest
      .map((cell, index) => {
        const label = table.header[index + 1] ?? "";
        return cell === "" ? "" : label === "" ? cell : `${label}: ${cell}`;
      })
      .filter((detail) => detail !== "");
    const lead = first === "" ? "-" : `- **${first}**`;
    return details.length === 0 ? lead : `${lead} — ${details.join(" · ")}`;
  });
}

function readTable(lines: readonly string[], start: number): { table: Table; end: number } | null {
  const headerLine = lines[start];
  if (!isRow(headerLine)) return null;
  const header = splitRow(headerLine);
  const alignments = delimiterAlignments(lines[start + 1], header.length);
  if (!alignments) return null;
  const rows: string[][] = [];
  let end = start + 2;
  for (; isRow(lines[end]); end++) rows.push(splitRow(lines[end] ?? "").slice(0, header.length));
  return { table: { header, alignments, rows }, end };
}

export function degradeTables(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fence: string | null = null;
  for (let index = 0; index < lines.length; ) {
    const line = lines[index] ?? "";
    const marker = FENCE.exec(line)?.[1];
    if (marker) {
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    }
    const found = fence === null && !marker ? readTable(lines, index) : null;
    if (!found) {
      out.push(line);
      index++;
      continue;
    }
    out.push(...(renderAligned(found.table) ?? renderList(found.table)));
    index = found.end;
  }
  return out.join("\n");
}
