import { html } from "hono/html";
import type { Html } from "./layout.ts";

export interface Bar {
  readonly label: string;
  readonly value: number;
  /** What the bar says in words, for screen readers and tooltips. */
  readonly title: string;
}

const WIDTH = 640;
const HEIGHT = 200;
const AXIS = 24;

/** A plain SVG bar chart; the same figures are always also in a table beside it. */
export function barChart(bars: readonly Bar[], caption: string): Html {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const slot = bars.length === 0 ? WIDTH : WIDTH / bars.length;
  const barWidth = Math.max(2, slot * 0.7);
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT + AXIS}" role="img" aria-label="${caption}" preserveAspectRatio="none">
  <line x1="0" y1="${HEIGHT}" x2="${WIDTH}" y2="${HEIGHT}" class="axis"></line>
  ${bars.map((bar, index) => {
    const height = Math.round((bar.value / max) * (HEIGHT - 10));
    const x = Math.round(index * slot + (slot - barWidth) / 2);
    return html`<g><title>${bar.title}</title>
    <rect x="${x}" y="${HEIGHT - height}" width="${Math.round(barWidth)}" height="${height}" class="bar"></rect>
    <text x="${Math.round(x + barWidth / 2)}" y="${HEIGHT + 16}" text-anchor="middle">${bar.label}</text></g>`;
  })}
</svg>
<figcaption>${caption}</figcaption>
</figure>`;
}
