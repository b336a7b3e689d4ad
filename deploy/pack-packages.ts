/**
 * Packs every workspace package the `switchboard` command needs, exactly as `pnpm publish` would
 * (publishConfig applied, workspace:* versions replaced), into one folder. The container build runs
 * it, and so does the test that replays that build outside a container
 * (test/installed-packages.e2e.test.ts), so a package the CLI starts to depend on is packed without
 * anyone editing a list: the set is read from packages/cli/package.json's dependencies, followed
 * through the workspace.
 *
 *   node deploy/pack-packages.ts <destination folder>     (after `pnpm build`)
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface WorkspacePackage {
  readonly name: string;
  readonly folder: string;
  readonly dependencies: Readonly<Record<string, string>>;
}

/** The packages under `packages/`, by name. */
export function readWorkspace(root: string): Map<string, WorkspacePackage> {
  const packages = new Map<string, WorkspacePackage>();
  for (const entry of readdirSync(join(root, "packages"), { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const folder = join(root, "packages", entry.name);
    const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as {
      name: string;
      dependencies?: Record<string, string>;
    };
    packages.set(manifest.name, { name: manifest.name, folder, dependencies: manifest.dependencies ?? {} });
  }
  return packages;
}

/**
 * `start` and every workspace package it depends on at run time (its `dependencies` with a
 * `workspace:` version, and theirs), dependencies before their dependents. Development dependencies
 * are not installed by users, so they do not count.
 */
export function runtimeClosure(
  workspace: ReadonlyMap<string, WorkspacePackage>,
  start: string,
): WorkspacePackage[] {
  const ordered: WorkspacePackage[] = [];
  const visiting = new Set<string>();
  const visit = (name: string, from: string) => {
    if (ordered.some((done) => done.name === name)) return;
    const found = workspace.get(name);
    if (!found)
      throw new Error(
        `${from} depends on ${name} with a workspace: version, but no package in packages/ is named so`,
      );
    if (visiting.has(name))
      throw new Error(`workspace packages depend on each other in a circle through ${name}`);
    visiting.add(name);
    for (const [dependency, version] of Object.entries(found.dependencies))
      if (version.startsWith("workspace:")) visit(dependency, name);
    visiting.delete(name);
    ordered.push(found);
  };
  visit(start, "the request");
  return ordered;
}

export const CLI_PACKAGE = "@switchboard/cli";

/** Packs the CLI's runtime closure into `destination`; resolves with the tarballs' paths. */
export function packCliPackages(root: string, destination: string): string[] {
  mkdirSync(destination, { recursive: true });
  const packed: string[] = [];
  for (const workspacePackage of runtimeClosure(readWorkspace(root), CLI_PACKAGE)) {
    const output = execFileSync("pnpm", ["pack", "--json", "--pack-destination", destination], {
      cwd: workspacePackage.folder,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    packed.push((JSON.parse(output) as { filename: string }).filename);
  }
  return packed;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const destination = process.argv[2];
  if (!destination) {
    process.stderr.write("usage: node deploy/pack-packages.ts <destination folder>\n");
    process.exit(2);
  }
  const root = fileURLToPath(new URL("..", import.meta.url));
  for (const tarball of packCliPackages(root, resolve(destination))) process.stdout.write(`${tarball}\n`);
}
