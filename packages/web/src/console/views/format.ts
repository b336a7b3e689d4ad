import { decodeConversationKey } from "@switchboard/core";
import type { PlaceNames } from "@switchboard/core/adapter";

/** `2026-11-23 19:04:53` in UTC: the same on every operator's screen, sortable, unambiguous. */
export function formatTime(epochMs: number | undefined): string {
  if (epochMs === undefined) return "—";
  return new Date(epochMs).toISOString().replace("T", " ").slice(0, 19);
}

/** `12s`, `4m 5s`, `2h 3m`, `3d 4h`. */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return "—";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function formatNumber(value: number): string {
  return value.toLocaleString("en-US");
}

export function formatCost(usd: number): string {
  return usd < 0.01 && usd > 0 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** The cost of some calls, where calls to a model with no price are unknown (never shown as free). */
export function formatUsageCost(row: {
  readonly calls: number;
  readonly costUsd: number;
  readonly unpricedCalls: number;
}): string {
  if (row.unpricedCalls === 0) return formatCost(row.costUsd);
  return row.unpricedCalls >= row.calls ? "unknown" : `${formatCost(row.costUsd)} + unknown`;
}

const PLACE_LABELS: Readonly<Record<string, readonly string[]>> = {
  slack: ["workspace", "channel", "thread"],
  discord: ["server", "channel", "thread"],
  matrix: ["room", "thread"],
  web: ["session", "thread"],
  console: ["thread"],
};

/** The key parts a readable room name stands for (a name needs no workspace or server id beside it). */
const ROOM_LABELS = new Set(["workspace", "server", "channel", "room"]);

/**
 * `channel C2 · thread 1700…` — the platform's place, named by what each part of the key is; with
 * the names the adapter knows, `#general · thread 1700…` or `#support · thread “Refund for 42”`.
 */
export function describePlace(key: string, names?: PlaceNames): { platform: string; place: string } {
  try {
    const { platform, path } = decodeConversationKey(key);
    const labels = PLACE_LABELS[platform] ?? [];
    const short = (part: string) => (part.length > 24 ? `${part.slice(0, 22)}…` : part);
    const parts = path.map((part, index) => ({ label: labels[index] ?? "part", part }));
    const named: string[] = names?.room ? [names.room] : [];
    for (const { label, part } of parts) {
      if (names?.room && ROOM_LABELS.has(label)) continue;
      if (names?.thread && label === "thread") named.push(`thread “${names.thread}”`);
      else named.push(`${label} ${short(part)}`);
    }
    return { platform, place: named.join(" · ") };
  } catch {
    return { platform: "?", place: key };
  }
}

export function conversationHref(key: string): string {
  return `/console/conversations/${encodeURIComponent(key)}`;
}
