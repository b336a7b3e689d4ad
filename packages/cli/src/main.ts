#!/usr/bin/env -S node --disable-warning=ExperimentalWarning
import { restartWithServerFlags } from "./process/server-flags.ts";

// The long-running command runs again at once with the Node options a server wants (see that module).
if (process.argv[2] === "start") restartWithServerFlags(process);

const shutdown = new AbortController();
let signals = 0;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    signals += 1;
    // The first signal stops cleanly (turns cancelled, locks released); a second one does not wait.
    if (signals > 1) process.exit(130);
    process.stderr.write(`\nswitchboard: ${signal} received, stopping (again to force)\n`);
    shutdown.abort(new Error(signal));
  });
}

// SIGHUP reloads the configuration (start); it never ends the process, whatever runs.
const reloadListeners: (() => void)[] = [];
process.on("SIGHUP", () => {
  for (const listener of reloadListeners) listener();
});

// Loaded only now, so that a signal arriving while the (large) module graph loads is handled too.
const { runCli } = await import("./run-cli.ts");
const { reportStrayFailures } = await import("./process/stray-failures.ts");
const { createStreamLogger } = await import("@switchboard/core/host");
reportStrayFailures(process, createStreamLogger("error"), (code) => process.exit(code));
const code = await runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  shutdownSignal: shutdown.signal,
  onReloadSignal: (listener) => reloadListeners.push(listener),
});
// Client libraries may keep sockets or timers alive after a clean close; the work is done, so leave
// once what was written has been flushed.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
