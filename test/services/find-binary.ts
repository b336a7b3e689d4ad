import { accessSync, constants, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";

/** The first executable called `name` on PATH, or undefined. */
export function findOnPath(name: string, path = process.env.PATH ?? ""): string | undefined {
  for (const folder of path.split(delimiter)) {
    if (folder === "") continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/**
 * The folder holding Postgres's server programs (`initdb`, `postgres`): PATH first, else the newest
 * version under /usr/lib/postgresql, where Debian installs them without putting them on PATH.
 */
export function findPostgresBin(
  path = process.env.PATH ?? "",
  debianRoot = "/usr/lib/postgresql",
): string | undefined {
  const initdb = findOnPath("initdb", path);
  if (initdb !== undefined && findOnPath("postgres", path) !== undefined) return join(initdb, "..");
  let versions: string[];
  try {
    versions = readdirSync(debianRoot);
  } catch {
    return undefined;
  }
  const newestFirst = versions.sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  for (const version of newestFirst) {
    const bin = join(debianRoot, version, "bin");
    if (findOnPath("initdb", bin) !== undefined && findOnPath("postgres", bin) !== undefined) return bin;
  }
  return undefined;
}
