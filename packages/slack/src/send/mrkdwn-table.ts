import type { AlignType, Nodes, Table } from "mdast";
import { escapeText } from "./escape.ts";

/** Tables wider than this (in characters) read better as one record per row than as a grid. */
export const MAX_GRID_WIDTH = 72;

/** The words of a node without formatting (table cells are shown in a code block or as labels). */
export function plainText(node: Nodes): string {
  if ("value" in node && typeof node.value === "string") return node.type === "html" ? "" : node.value;
  if (node.type === "break") return " ";
  if (node.type === "image") return node.alt ?? "";
  if ("children" in node) return node.children.map((child) => plainText(child)).join("");
  return "";
}

function pad(text: string, width: number, align: AlignType | undefined) {
  if (align === "right") return text.padStart(width);
  if (align === "center") {
    const left = Math.floor((width - text.length) / 2);
    return (" ".repeat(left) + text).padEnd(width);
  }
  return text.padEnd(width);
}

/**
 * Slack has no tables. A narrow table becomes an aligned grid in a code block (monospace keeps the
 * columns straight); a wide one becomes one block per row: `*first header: first cell*`, then `header: value` lines.
 */
export function renderTable(table: Table): string {
  const rows = table.children.map((row) =>
    row.children.map((cell) => plainText(cell).replace(/\s+/g, " ").trim()),
  );
  const [header = [], ...body] = rows;
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, i) =>
    Math.max(1, ...rows.map((row) => (row[i] ?? "").length)),
  );
  const gridWidth = widths.reduce((sum, width) => sum + width, 0) + 3 * Math.max(0, columns - 1);

  if (gridWidth <= MAX_GRID_WIDTH) {
    const line = (row: string[]) =>
      widths
        .map((width, i) => pad(row[i] ?? "", width, table.align?.[i]))
        .join(" | ")
        .trimEnd();
    const rule = widths.map((width) => "-".repeat(width)).join("-+-");
    const lines = [line(header), rule, ...body.map(line)];
    return `\`\`\`\n${escapeText(lines.join("\n"))}\n\`\`\``;
  }

  return body
    .map((row) => {
      const [title = "", ...rest] = row;
      const fields = rest
        .map((value, i) => ({ label: header[i + 1] ?? "", value }))
        .filter((field) => field.value !== "")
        .map((field) =>
          field.label ? `${escapeText(field.label)}: ${escapeText(field.value)}` : escapeText(field.value),
        );
      const named = header[0] ? `${header[0]}: ${title}` : title;
      const heading = title === "" ? [] : [`*${escapeText(named)}*`];
      return [...heading, ...fields].join("\n");
    })
    .join("\n\n");
}
