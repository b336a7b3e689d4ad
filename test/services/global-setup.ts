/**
 * Vitest global setup: the test run brings its own Redis and Postgres. Each is started privately
 * (a free loopback port, a temporary folder, stopped after the run) unless the developer points
 * the tests at one explicitly, and its URL is handed to the test workers (vitest's `provide`) and
 * to any program a test starts (the environment). A service whose programs are missing is announced in one
 * line, and the tests that need it are skipped.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startPrivatePostgres } from "./postgres-service.ts";
import { type RunningService, startPrivateRedis } from "./redis-service.ts";

const INSTALL_HINT = "apt-get install redis-server postgresql";

interface TestService {
  readonly name: string;
  /** The variable the tests read; set by the developer to use a server of their own instead. */
  readonly variable: string;
  /** Where the test workers read its URL (`inject`); empty when the run has none. */
  readonly provided: "testRedisUrl" | "testPostgresUrl";
  readonly programs: string;
  start(directory: string): Promise<RunningService | undefined>;
}

const SERVICES: readonly TestService[] = [
  {
    name: "Redis",
    variable: "SWITCHBOARD_TEST_REDIS_URL",
    provided: "testRedisUrl",
    programs: "redis-server",
    start: startPrivateRedis,
  },
  {
    name: "Postgres",
    variable: "SWITCHBOARD_TEST_POSTGRES_URL",
    provided: "testPostgresUrl",
    programs: "Postgres (initdb, postgres)",
    start: startPrivatePostgres,
  },
];

export default async function startTestServices(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(join(tmpdir(), "switchboard-test-services-"));
  // Traversable by the user a root test run starts Postgres as (see postgres-service.ts).
  await chmod(root, 0o711);
  const started: RunningService[] = [];
  const teardown = async () => {
    await Promise.all(started.map((service) => service.stop()));
    await rm(root, { recursive: true, force: true });
  };
  try {
    await Promise.all(
      SERVICES.map(async (service) => {
        const given = process.env[service.variable]?.trim();
        if (given) return;
        const running = await service.start(await mkdtemp(join(root, `${service.name.toLowerCase()}-`)));
        if (running === undefined) {
          delete process.env[service.variable];
          process.stderr.write(
            `switchboard tests: ${service.programs} not found, so the ${service.name} tests are skipped (${INSTALL_HINT}, or set ${service.variable})\n`,
          );
          return;
        }
        started.push(running);
        process.env[service.variable] = running.url;
      }),
    );
  } catch (error) {
    await teardown();
    throw error;
  }
  for (const service of SERVICES)
    project.provide(service.provided, process.env[service.variable]?.trim() ?? "");
  return teardown;
}
