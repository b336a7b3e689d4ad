import { openStore } from "@switchboard/core";
import { createStreamLogger } from "@switchboard/core/host";
import { openTools } from "../app/tools.ts";
import type { CliContext, CommonOptions } from "../cli-context.ts";
import { ConfigError, type LoadedConfig, loadConfig } from "../config/load-config.ts";
import { checkCheckpoints, checkNode, checkPlatforms, checkStore } from "./doctor-checks.ts";
import { checkDiscordCommands, checkFiles, notFixed } from "./doctor-fix.ts";
import { checkMcpServers } from "./doctor-mcp.ts";
import { checkModels } from "./doctor-model.ts";
import type { CheckResult } from "./doctor-result.ts";
import { checkTeam } from "./doctor-team.ts";

export interface DoctorOptions extends CommonOptions {
  /** Send nothing to the model provider (keys are still checked). */
  readonly offline: boolean;
  /** Repair what can be repaired (data folder, file modes, slash commands) and say what cannot. */
  readonly fix?: boolean;
  /** Slack in HTTP mode: wait for Slack's signed request and check the signing secret with it. */
  readonly slackVerify?: boolean;
}

import { checkScaleOut } from "./doctor-scale-out.ts";
import { checkSlackSigningSecret } from "./doctor-slack-signing.ts";

/**
 * Checks everything start-up needs, one line per check on stdout, and exits 1 when any check
 * found a problem (warnings do not fail it). Never starts the adapters or answers anything.
 */
export async function doctorCommand(options: DoctorOptions, context: CliContext): Promise<number> {
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
    // Settings that work but do not do what they look like (a secret for a section that is off, no team:).
    for (const notice of loaded.notices) report({ name: "config", status: "warning", detail: notice });
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
    for (const result of await checkModels(loaded, { offline: options.offline })) report(result);
    const fix = options.fix ?? false;
    for (const result of await checkFiles(loaded, context.cwd, options.config, fix)) report(result);
    const { result: storeResult, store } = await checkStore(loaded.config.store, context.cwd, logger);
    report(storeResult);
    try {
      report(await checkCheckpoints(loaded.config.checkpoints, context.cwd, logger));
      for (const result of await checkPlatforms(loaded, logger, store)) report(result);
      const signing = await checkSlackSigningSecret(loaded, {
        verify: options.slackVerify ?? false,
        signal: context.shutdownSignal,
        say: (line) => context.stdout.write(`${line}\n`),
      });
      for (const result of signing) report(result);
      for (const result of await checkDiscordCommands(loaded, context.cwd, fix)) report(result);
      if (fix) for (const result of notFixed(loaded)) report(result);
      // The catalog start builds, on a scratch store: doctor attaches no tool to any conversation.
      const scratch = await openStore("memory://", { cwd: context.cwd, logger });
      const tools = await openTools(loaded.config, { store: scratch, logger });
      try {
        for (const result of checkMcpServers(loaded, tools)) report(result);
        for (const result of checkTeam(loaded, tools)) report(result);
      } finally {
        await tools.close();
        await scratch.close();
      }
      for (const result of await checkScaleOut(loaded, context.cwd, logger)) report(result);
    } finally {
      await store?.close();
    }
  } else {
    for (const name of ["model", "store", "checkpoints", "platforms", "mcp", "team", "role"]) {
      report({ name, status: "skipped", detail: "the configuration is not valid" });
    }
  }

  const problems = results.filter((result) => result.status === "problem").length;
  if (options.fix && problems > 0)
    context.stdout.write(
      `--fix could not repair ${problems === 1 ? "the problem" : `the ${problems} problems`} above: each says what to do\n`,
    );
  const warnings = results.filter((result) => result.status === "warning").length;
  const warned = warnings === 0 ? "" : ` (${warnings} warning${warnings === 1 ? "" : "s"})`;
  context.stdout.write(
    problems === 0
      ? `all checks passed${warned}\n`
      : `${problems} problem${problems === 1 ? "" : "s"} found${warned}\n`,
  );
  return problems === 0 ? 0 : 1;
}
