import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanEnvironment, runProgramOk } from "./run-program.ts";

export const REPOSITORY_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Every publishable package of the workspace, dependencies first. */
export const PACKAGE_FOLDERS = ["core", "matrix", "discord", "slack", "web", "cli"] as const;

/**
 * Builds the packages (tsc, incremental: a current build costs a second) and packs each with
 * `pnpm pack`, exactly as `pnpm publish` would: publishConfig applied, workspace:* versions
 * replaced. Resolves with the tarballs' paths.
 */
export async function packWorkspace(destination: string): Promise<string[]> {
  const env = cleanEnvironment();
  await runProgramOk("pnpm", ["run", "--silent", "build"], { cwd: REPOSITORY_ROOT, env, timeoutMs: 240_000 });
  await Promise.all(
    PACKAGE_FOLDERS.map((folder) =>
      runProgramOk("pnpm", ["pack", "--pack-destination", destination], {
        cwd: join(REPOSITORY_ROOT, "packages", folder),
        env,
      }),
    ),
  );
  const tarballs = (await readdir(destination)).filter((name) => name.endsWith(".tgz"));
  if (tarballs.length !== PACKAGE_FOLDERS.length) {
    throw new Error(
      `expected ${PACKAGE_FOLDERS.length} tarballs in ${destination}, found ${tarballs.join(", ")}`,
    );
  }
  return tarballs.map((name) => join(destination, name));
}
