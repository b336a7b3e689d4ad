/** What a systemd unit for Switchboard is made of; everything absolute, decided by the caller. */
export interface ServiceUnitInput {
  /** The account the service runs as (never root: the process needs no privileges). */
  readonly user: string;
  /** Where relative paths of the configuration resolve (the SQLite store's ./data/…). */
  readonly workingDirectory: string;
  /** The program and its arguments: node, its flags, the CLI's entry point, `start`, `--config …`. */
  readonly command: readonly string[];
  /** Secrets (tokens, API keys) as VAR=value lines, kept out of the unit and the configuration file. */
  readonly environmentFile: string;
  /** engine.lockTtlSeconds: how long a dead process's conversation locks hold. */
  readonly lockTtlSeconds: number;
}

export class ServiceUnitError extends Error {}

/**
 * A systemd service unit that runs `switchboard start`. Stopping sends SIGTERM, on which Switchboard
 * cancels running turns, releases its conversation locks and exits; systemd waits at most one lock
 * TTL for that, because past it the locks would have expired anyway and another process may already
 * have taken the conversations over, so waiting longer only delays a restart.
 */
export function renderSystemdUnit(input: ServiceUnitInput): string {
  for (const value of [input.user, input.workingDirectory, input.environmentFile, ...input.command]) {
    if (/[\n\r\0]/.test(value))
      throw new ServiceUnitError(
        `cannot put a value with a line break into a unit: ${JSON.stringify(value)}`,
      );
  }
  if (!/^[a-z_][a-z0-9_-]*\$?$/i.test(input.user)) {
    throw new ServiceUnitError(`"${input.user}" is not a valid user name for User=`);
  }
  if (input.user === "root")
    throw new ServiceUnitError("refusing to run Switchboard as root; name a service account with --user");
  for (const path of [input.workingDirectory, input.environmentFile, input.command[0] ?? ""]) {
    if (!path.startsWith("/")) throw new ServiceUnitError(`systemd needs absolute paths, got "${path}"`);
  }
  return `[Unit]
Description=Switchboard: a team of AI agents in Matrix, Discord and Slack
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=${input.user}
WorkingDirectory=${escapeSpecifiers(input.workingDirectory)}
EnvironmentFile=${escapeSpecifiers(input.environmentFile)}
ExecStart=${input.command.map(quoteArgument).join(" ")}
ExecReload=/bin/kill -HUP $MAINPID
# SIGTERM stops cleanly (turns cancelled, locks released); past one lock TTL the locks have expired anyway.
KillSignal=SIGTERM
TimeoutStopSec=${input.lockTtlSeconds}s
Restart=on-failure
RestartSec=5s
# Conversations and secrets stay readable by the service account only.
UMask=0077
NoNewPrivileges=yes
PrivateTmp=yes
ProtectSystem=full
SyslogIdentifier=switchboard

[Install]
WantedBy=multi-user.target
`;
}

/** `%` starts a specifier in unit files. */
function escapeSpecifiers(value: string): string {
  return value.replaceAll("%", "%%");
}

/**
 * One ExecStart argument: bare when it holds only characters systemd passes through, else in
 * double quotes with backslashes and quotes escaped. `$` would expand a variable, `%` a specifier.
 */
function quoteArgument(argument: string): string {
  const escaped = escapeSpecifiers(argument).replaceAll("$", () => "$$");
  if (/^[\w@%+=:,./-]+$/.test(argument)) return escaped;
  return `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}
