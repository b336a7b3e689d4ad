import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { runCommandsOfStage } from "./dockerfile-stages.ts";
import { REPOSITORY_ROOT } from "./repository-root.ts";
import { cleanEnvironment, type ProgramResult, runProgram, runProgramOk } from "./run-program.ts";

/** npm could not reach the registry for a dependency its cache lacks: the test is skipped. */
export class RegistryUnreachableError extends Error {}

const NETWORK_FAILURE = /ENOTFOUND|EAI_AGAIN|ENETUNREACH|ECONNREFUSED|ECONNRESET|ETIMEDOUT/;
/** Where the Dockerfile keeps the tarballs between its stages. */
const PACKS_IN_IMAGE = "/packs";

const dockerfile = () => readFile(join(REPOSITORY_ROOT, "Dockerfile"), "utf8");
const withPacksIn = (command: string, packs: string) => command.replaceAll(PACKS_IN_IMAGE, packs);

/**
 * The image's build stage after its dependencies are installed (which `./run` has done here): the
 * packages are built and packed into `packs`, by the Dockerfile's own commands.
 */
export async function replayPackStep(packs: string): Promise<string[]> {
  const [installPnpm, installDependencies, ...packing] = runCommandsOfStage(await dockerfile(), "build");
  if (
    !/^npm install --global .*pnpm@/.test(installPnpm ?? "") ||
    installDependencies !== "pnpm install --frozen-lockfile"
  )
    throw new Error(
      `the Dockerfile's build stage should install pnpm, then the dependencies, then pack: got ${JSON.stringify([installPnpm, installDependencies])}`,
    );
  for (const command of packing)
    await runProgramOk("sh", ["-c", withPacksIn(command, packs)], {
      cwd: REPOSITORY_ROOT,
      env: cleanEnvironment(),
      timeoutMs: 300_000,
    });
  return (await readdir(packs))
    .filter((name) => name.endsWith(".tgz"))
    .sort()
    .map((name) => join(packs, name));
}

/**
 * The image's install stage, its commands run as they are written in `project` (its WORKDIR) with
 * the tarballs from `packs`. npm's cache is tried alone first (`npm_config_offline`): a machine that
 * installed these dependencies once needs no network. What the cache lacks comes from the npm
 * registry (`npm_config_prefer_offline`) — the one registry this machine and CI reach; npm cannot
 * take packages from pnpm's store, which keeps unpacked files, not the registry's tarballs.
 */
export async function replayInstallStage(packs: string, project: string): Promise<void> {
  const commands = runCommandsOfStage(await dockerfile(), "install");
  const run = async (mode: Record<string, string>): Promise<ProgramResult> => {
    await rm(project, { recursive: true, force: true });
    await mkdir(project, { recursive: true });
    const script = commands.map((command) => withPacksIn(command, packs)).join(" && ");
    return runProgram("sh", ["-c", script], {
      cwd: project,
      env: cleanEnvironment(mode),
      timeoutMs: 400_000,
    });
  };
  const fromCache = await run({ npm_config_offline: "true" });
  if (fromCache.code === 0) return;
  if (!fromCache.stderr.includes("ENOTCACHED"))
    throw new Error(`the install stage failed:\n${fromCache.stderr}`);
  const fromRegistry = await run({ npm_config_prefer_offline: "true", npm_config_fetch_retries: "1" });
  if (fromRegistry.code === 0) return;
  if (NETWORK_FAILURE.test(fromRegistry.stderr)) {
    throw new RegistryUnreachableError(
      `the npm registry is unreachable and the npm cache lacks some dependencies (${fromRegistry.stderr.split("\n")[0]})`,
    );
  }
  throw new Error(`the install stage failed:\n${fromRegistry.stderr}`);
}
