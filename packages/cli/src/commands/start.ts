import { userInfo } from "node:os";
import { createPinoLogger } from "@switchboard/core";
import { describeModel } from "@switchboard/core/host";
import { type App, buildApp } from "../app/build-app.ts";
import { runningLine } from "../app/role.ts";
import type { CliContext, CommonOptions } from "../cli-context.ts";
import { configSecrets } from "../config/config-secrets.ts";
import { loadConfig } from "../config/load-config.ts";
import { ConsoleOutput, runConsole } from "../console/console-runner.ts";
import { createTerminalMarkdown } from "../console/terminal-markdown.ts";
import { ConfigReloader } from "../reload/config-reloader.ts";
import { reportStartupFailure } from "./startup-failure.ts";

/**
 * Starts Switchboard: the platforms the configuration enables, or with none, a chat in this
 * terminal. Logs go to stderr, the chat to stdout. Resolves with the exit code once everything is
 * stopped and closed.
 */
export async function startCommand(options: CommonOptions, context: CliContext): Promise<number> {
  const { stderr } = context;
  let app: App;
  let reloader: ConfigReloader | undefined;
  const output = new ConsoleOutput(context.stdout, stderr);
  try {
    const loaded = await loadConfig({
      path: options.config,
      cwd: context.cwd,
      env: context.env,
      ...(options.role === undefined ? {} : { role: options.role }),
    });
    const { config } = loaded;
    const logger = createPinoLogger({
      level: config.logLevel,
      components: config.logLevels,
      pretty:
        config.logFormat === "pretty" ||
        (config.logFormat === "auto" && (stderr as { isTTY?: boolean }).isTTY === true),
      secrets: configSecrets(config, { apiKeys: Object.values(loaded.providerKeys) }),
      write: output.log,
    });
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
      // Rendered for a person at a terminal; a pipe gets the text as the team wrote it.
      ...(context.stdout.isTTY === true
        ? { renderMarkdown: createTerminalMarkdown((context.stdout as { columns?: number }).columns) }
        : {}),
    });
    stderr.write(`store: ${app.store.description}\n`);
    stderr.write(`checkpoints: ${app.checkpointer.description}\n`);
    if (app.scaleOut) stderr.write(`role: ${loaded.config.role}; work queue: ${app.scaleOut}\n`);
    const agents = app.team.agents().map((agent) => agent.name);
    stderr.write(`agents: ${agents.join(", ")}\n`);
    await startEngine(app);
    // SIGHUP or an edit of the file: what can change live changes; the rest waits for a restart.
    const started = app;
    const loadOptions = {
      path: options.config,
      cwd: context.cwd,
      env: context.env,
      ...(options.role === undefined ? {} : { role: options.role }),
    };
    const live = new ConfigReloader({
      load: () => loadConfig(loadOptions),
      reconfigure: (next) => started.reconfigure(next),
      logger,
    });
    reloader = live;
    if (loaded.fileExists) live.watch(loaded.filePath);
    context.onReloadSignal?.(() => void live.reload("SIGHUP"));
    logger.info(
      loaded.fileExists
        ? "the configuration reloads on SIGHUP and when its file changes"
        : "the configuration reloads on SIGHUP",
      { file: loaded.source },
    );
    const operatorConsole = app.operatorConsole();
    if (operatorConsole) stderr.write(`${describeConsole(operatorConsole)}\n`);
  } catch (error) {
    return reportStartupFailure(error, stderr);
  }

  const shutdown = async () => {
    await reloader?.close();
    await app.close();
  };
  if (!app.console) {
    stderr.write(`${runningLine(app.role, app.platforms)}\n`);
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

/**
 * Where the operator console is. A generated token is printed once, when it is made; after that
 * it stays in the store and is never printed again.
 */
export function describeConsole(info: NonNullable<ReturnType<App["operatorConsole"]>>): string {
  switch (info.token.source) {
    case "generated":
      return `console: ${info.url}?token=${info.token.token} (a token was generated and kept in the store; set http.consoleToken or SWITCHBOARD_CONSOLE_TOKEN to choose your own)`;
    case "stored":
      return `console: ${info.url} (token generated on the first start and printed then; set http.consoleToken to replace it)`;
    case "configured":
      return `console: ${info.url} (token from http.consoleToken)`;
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
