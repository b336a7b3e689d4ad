import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh folder for SQLite files; `remove()` deletes it with everything in it. */
export function tempDir(label: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `switchboard-bench-${label}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function sqliteUrl(dir: string, name = "switchboard.db"): string {
  return `sqlite://${join(dir, name)}`;
}
