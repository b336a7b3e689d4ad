import { userInfo } from "node:os";
import { createStreamLogger, describeModel } from "@switchboard/core";
import { type App, buildApp } from "../app/build-app.ts";
import type { CliContext, CommonOptions } from "../cli-context.ts";
import { loadConfig } from "../config/load-config.ts";
import { ConsoleOutput, runConsole } from "../console/console-runner.ts";
import { reportStartupFailure } from "./startup-failure.ts";

/**
 * Starts Switchboard: the platforms the configuration enables, or with none, a chat in this
 * terminal. Logs go to stderr, the chat to stdout. Resolves with the exit code once everything is
 * stopped and closed.
 */
export async function startCommand(options: CommonOptions, context: CliContext): Promise<number> {
  const { stderr } = context;
  let app: App;
  const output = new ConsoleOutput(context.stdout, stderr);
  try {
    const loaded = await loadConfig({ path: options.config, cwd: context.cwd, env: context.env });
    const { config } = loaded;
    const logger = createStreamLogger(config.logLevel, output.log);
    // Plain lines, not log records: the first thing an operator should read.
    stderr.write(`config: ${loaded.source}\n`);
    stderr.write(`model: ${describeModel(config.model)}\n`);
    for (const notice of loaded.notices) logger.warn(notice);
    app = await buildApp({
      loaded,
      logger,
      cwd: context.cwd,
      print: output.print,
      consoleUser: consoleUserName(context),
    });
    stderr.write(`store: ${app.store.description}\n`);
    stderr.write(`checkpoints: ${app.checkpointer.description}\n`);
    const agents = app.team.agents().map((agent) => agent.name);
    stderr.write(`agents: ${agents.join(", ")}\n`);
    await startEngine(app);
  } catch (error) {
    return reportStartupFailure(error, stderr);
  }

  const shutdown = () => app.close();
  if (!app.console) {
    stderr.write(`running on ${app.platforms.join(", ")}; Ctrl-C stops\n`);
    await new Promise<void>((resolve) => {
      if (context.shutdownSignal.aborted) resolve();
      context.shutdownSignal.addEventListener("abort", () => resolve(), { once: true });
    });
    await shutdown();
    stderr.write("switchboard: stopped\n");
    return 0;
  }

  const interactive = context.stdin.isTTY === true && context.stdout.isTTY === true;
  const end = await runConsole({
    adapter: app.console,
    idle: () => app.idle(),
    input: context.stdin,
    output,
    terminal: context.stdout,
    interactive,
    signal: context.shutdownSignal,
  });
  await shutdown();
  // Stopping on SIGINT/SIGTERM is a clean end too: turns were finished or left queued, locks released.
  if (end === "aborted") stderr.write("switchboard: stopped\n");
  return 0;
}

async function startEngine(app: App): Promise<void> {
  try {
    await app.start();
  } catch (error) {
    await app.close();
    throw error;
  }
}

function consoleUserName(context: CliContext): string {
  try {
    return userInfo().username || "you";
  } catch {
    // No passwd entry (some containers): the environment may still know.
    return context.env.USER ?? "you";
  }
}
