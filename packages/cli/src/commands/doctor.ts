import { createStreamLogger } from "@switchboard/core";
import type { CliContext, CommonOptions } from "../cli-context.ts";
import { ConfigError, type LoadedConfig, loadConfig } from "../config/load-config.ts";
import {
  type CheckResult,
  checkCheckpoints,
  checkModels,
  checkNode,
  checkPlatforms,
  checkStore,
} from "./doctor-checks.ts";
import { checkMcpServers } from "./doctor-mcp.ts";
import { checkScaleOut } from "./doctor-scale-out.ts";

/**
 * Checks everything start-up needs, one line per check on stdout, and exits 1 when any check
 * found a problem. Never starts the adapters or answers anything.
 */
export async function doctorCommand(options: CommonOptions, context: CliContext): Promise<number> {
  const results: CheckResult[] = [];
  const report = (result: CheckResult) => {
    results.push(result);
    const fix = result.fix ? ` — fix: ${result.fix}` : "";
    context.stdout.write(`${result.status.padEnd(8)} ${result.name}: ${result.detail}${fix}\n`);
  };

  report(checkNode(process.versions.node));
  let loaded: LoadedConfig | undefined;
  try {
    loaded = await loadConfig({
      path: options.config,
      cwd: context.cwd,
      env: context.env,
      ...(options.role === undefined ? {} : { role: options.role }),
    });
    report({ name: "config", status: "ok", detail: loaded.source });
    for (const notice of loaded.notices) context.stdout.write(`${"note".padEnd(8)} config: ${notice}\n`);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) {
      report({
        name: "config",
        status: "problem",
        detail: problem,
        // Never a command that overwrites the operator's file.
        fix: "edit the file (switchboard init --config switchboard.example.yaml writes the commented example beside it)",
      });
    }
  }

  if (loaded) {
    // Background failures (a Redis reconnect) would interleave with the report; only errors matter here.
    const logger = createStreamLogger("error", (line) => context.stderr.write(line));
    for (const result of await checkModels(loaded)) report(result);
    report(await checkStore(loaded.config.store, context.cwd, logger));
    report(await checkCheckpoints(loaded.config.checkpoints, context.cwd, logger));
    for (const result of await checkPlatforms(loaded, logger)) report(result);
    for (const result of await checkMcpServers(loaded, logger)) report(result);
    for (const result of await checkScaleOut(loaded, context.cwd, logger)) report(result);
  } else {
    for (const name of ["model", "store", "checkpoints", "platforms", "mcp", "role"]) {
      report({ name, status: "skipped", detail: "the configuration is not valid" });
    }
  }

  const problems = results.filter((result) => result.status === "problem").length;
  context.stdout.write(
    problems === 0 ? "all checks passed\n" : `${problems} problem${problems === 1 ? "" : "s"} found\n`,
  );
  return problems === 0 ? 0 : 1;
}
