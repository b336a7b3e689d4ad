import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cleanEnvironment, type ProgramResult, runProgram } from "./run-program.ts";

/** npm could not reach the registry for a dependency its cache lacks: the test is skipped. */
export class RegistryUnreachableError extends Error {}

const NETWORK_FAILURE = /ENOTFOUND|EAI_AGAIN|ENETUNREACH|ECONNREFUSED|ECONNRESET|ETIMEDOUT/;

// Install scripts stay off: one of matrix-bot-sdk's dependencies downloads a native E2EE binary from
// outside the npm registry at install time; the Matrix adapter runs without it (see its README).
const INSTALL_FLAGS = ["--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"];

/**
 * A fresh npm project (no workspace, no lockfile) in `directory` with `tarballs` installed by plain
 * npm. The npm cache is tried alone first, so a machine that installed these dependencies once
 * needs no network; what the cache lacks comes from the registry.
 */
export async function installIntoFreshProject(directory: string, tarballs: readonly string[]): Promise<void> {
  await writeFile(
    join(directory, "package.json"),
    `${JSON.stringify({ name: "switchboard-install-check", private: true, type: "module" }, null, 2)}\n`,
  );
  const env = cleanEnvironment();
  const npmInstall = (mode: string[]): Promise<ProgramResult> =>
    runProgram("npm", ["install", ...INSTALL_FLAGS, ...mode, ...tarballs], {
      cwd: directory,
      env,
      timeoutMs: 240_000,
    });
  const fromCache = await npmInstall(["--offline"]);
  if (fromCache.code === 0) return;
  if (!fromCache.stderr.includes("ENOTCACHED")) throw new Error(`npm install failed:\n${fromCache.stderr}`);
  const fromRegistry = await npmInstall(["--prefer-offline", "--fetch-retries=1"]);
  if (fromRegistry.code === 0) return;
  if (NETWORK_FAILURE.test(fromRegistry.stderr)) {
    throw new RegistryUnreachableError(
      `the npm registry is unreachable and the npm cache lacks some dependencies (${fromRegistry.stderr.split("\n")[0]})`,
    );
  }
  throw new Error(`npm install failed:\n${fromRegistry.stderr}`);
}
