import { execFile } from "node:child_process";
import { chown, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { findPostgresBin } from "./find-binary.ts";
import { freePort } from "./free-port.ts";
import type { RunningService } from "./redis-service.ts";
import { type ServerProcess, ServerStartError, startServerProcess } from "./server-process.ts";

const run = promisify(execFile);
const ATTEMPTS = 3;
/** The database and user the tests connect with (trust authentication on loopback). */
export const TEST_DATABASE = "test";
const SUPERUSER = "postgres";

/**
 * A private, throw-away Postgres for one test run: a fresh cluster in `directory`, loopback only,
 * a free port, durability switched off (nothing outlives the run). Undefined when Postgres's server
 * programs are not installed.
 */
export async function startPrivatePostgres(directory: string): Promise<RunningService | undefined> {
  const bin = findPostgresBin();
  if (bin === undefined) return undefined;
  const owner = await clusterOwner();
  const dataDirectory = join(directory, "data");
  await mkdir(dataDirectory, { mode: 0o700 });
  if (owner !== undefined) {
    await chown(directory, owner.uid, owner.gid);
    await chown(dataDirectory, owner.uid, owner.gid);
  }
  const asOwner = owner === undefined ? {} : { uid: owner.uid, gid: owner.gid };
  await run(
    join(bin, "initdb"),
    ["-D", dataDirectory, "-U", SUPERUSER, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"],
    { ...asOwner, cwd: directory },
  );
  let lastError: unknown;
  // Another program may take the free port between asking for it and binding it: try a few.
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = await freePort();
    try {
      const server: ServerProcess = await startServerProcess(
        join(bin, "postgres"),
        [
          ...["-D", dataDirectory, "-p", String(port), "-k", directory],
          ...["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off"],
          ...["-c", "full_page_writes=off", "-c", "max_connections=200"],
        ],
        // Postgres stops fastest (and still cleanly) on SIGINT.
        {
          readyLine: "database system is ready to accept connections",
          stopSignal: "SIGINT",
          spawn: { ...asOwner, cwd: directory },
        },
      );
      const admin = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
      await createDatabase(admin, TEST_DATABASE);
      return { url: `postgres://${SUPERUSER}@127.0.0.1:${port}/${TEST_DATABASE}`, stop: () => server.stop() };
    } catch (error) {
      if (!(error instanceof ServerStartError)) throw error;
      lastError = error;
    }
  }
  throw lastError;
}

async function createDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

/**
 * Postgres refuses to run as root; a root test run starts it as the `postgres` system user that
 * Debian's package creates (else `nobody`). Undefined when not root: it then runs as ourselves.
 */
export async function clusterOwner(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  for (const user of ["postgres", "nobody"]) {
    try {
      const uid = Number((await run("id", ["-u", user])).stdout.trim());
      const gid = Number((await run("id", ["-g", user])).stdout.trim());
      return { uid, gid };
    } catch {
      // no such user: try the next
    }
  }
  throw new ServerStartError(
    "running as root, and neither a postgres nor a nobody user exists to run Postgres as",
  );
}
