import type { Figure } from "./figures.ts";

function show(value: number | null, unit = ""): string {
  if (value === null) return "pending";
  const text =
    Math.abs(value) >= 1000
      ? Math.round(value).toLocaleString("en-US")
      : Number.isInteger(value) && Math.abs(value) < 10
        ? value.toFixed(1) // "1.0 calls": the targets are written that way
        : String(value);
  return unit === "" ? text : `${text} ${unit}`;
}

function verdict(figure: Figure): string {
  const met = figure.target?.met;
  if (figure.target === undefined) return "";
  return met === true ? "met" : met === false ? "MISSED" : "—";
}

/** The one table `pnpm bench` prints (Markdown, so bench/README.md and the terminal show the same thing). */
export function renderTable(figures: readonly Figure[]): string {
  const rows = figures.map((figure) => [
    `\`${figure.key}\``,
    show(figure.value, figure.unit),
    figure.baseline ? `${figure.baseline.label}: ${show(figure.baseline.value)}` : "",
    figure.target?.text ?? "",
    verdict(figure),
  ]);
  const header = ["figure", "this run", "baseline (same run)", "target", ""];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

export function renderNotes(figures: readonly Figure[]): string {
  return figures
    .filter((figure) => figure.note)
    .map((figure) => `- \`${figure.key}\`: ${figure.note}`)
    .join("\n");
}
