/**
 * The switchboard.yaml of a crash test (written as JSON, which YAML reads): Slack in HTTP mode on the
 * stand-in, the model stub, one shared store, a short lock TTL so expiry-driven recovery is quick,
 * memory off (its model calls would make the stub's counts harder to read), no working indicator.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SIGNING_SECRET } from "../slack/event-payloads.ts";
import { BOT_TOKEN } from "../slack/web-api-stand-in.ts";

export interface HttpToolEntry {
  readonly name: string;
  readonly description: string;
  readonly url: string;
  readonly requiresApproval?: boolean;
}

export interface CrashConfigOptions {
  readonly storeUrl: string;
  readonly model: Record<string, unknown>;
  readonly slackApiUrl: string;
  /** Where this process's Slack events server listens. */
  readonly port: number;
  readonly lockTtlSeconds: number;
  /** Tools the supervisor may call directly (by name). */
  readonly supervisorTools?: readonly string[];
  readonly tools?: readonly HttpToolEntry[];
  /** Words that turn `@bot word` into the command `/word` in Slack (e.g. approve). */
  readonly commandWords?: readonly string[];
  /** Scale-out: this process's role, and how long a dead worker's drain job stays locked. */
  readonly role?: "ingress" | "worker";
  readonly jobLockSeconds?: number;
  /** Extra top-level sections (engine settings the lead adds, limits…). */
  readonly extra?: Record<string, unknown>;
}

export function crashConfig(options: CrashConfigOptions): Record<string, unknown> {
  const { extra = {} } = options;
  const engine = (extra.engine ?? {}) as Record<string, unknown>;
  // A cluster role's scale-out section: quick sweeps and job locks (a killed worker's drains move
  // on within seconds) under what the test sets itself; without a role, `extra` gives it as is.
  const scaleOut = options.role
    ? {
        jobLockSeconds: options.jobLockSeconds ?? 3,
        sweepSeconds: 2,
        ...((extra.scaleOut ?? {}) as Record<string, unknown>),
      }
    : extra.scaleOut;
  return {
    model: options.model,
    store: options.storeUrl,
    logLevel: "info",
    engine: { lockTtlSeconds: options.lockTtlSeconds, ...engine },
    team: {
      supervisor: {
        prompt: "Answer the user directly.",
        tools: [...(options.supervisorTools ?? [])],
      },
      specialists: [],
    },
    memory: { enabled: false },
    tools: (options.tools ?? []).map((tool) => ({ requiresApproval: false, ...tool })),
    slack: {
      mode: "http",
      port: options.port,
      host: "127.0.0.1",
      apiUrl: options.slackApiUrl,
      workingIndicator: "off",
      // These tests are about the outbox and its idempotent posts; a streamed answer's crash
      // behaviour is tested with the streaming tests.
      streaming: "off",
      ...(options.commandWords ? { commandWords: [...options.commandWords] } : {}),
    },
    ...(options.role ? { role: options.role } : {}),
    ...(scaleOut === undefined ? {} : { scaleOut }),
    ...Object.fromEntries(Object.entries(extra).filter(([key]) => key !== "engine" && key !== "scaleOut")),
  };
}

/** Writes `config` as `dir/name` and returns the environment the process needs for Slack's secrets. */
export async function writeCrashConfig(
  dir: string,
  config: Record<string, unknown>,
  name = "switchboard.yaml",
): Promise<Record<string, string>> {
  await writeFile(join(dir, name), JSON.stringify(config, null, 2));
  return { SWITCHBOARD_SLACK_BOT_TOKEN: BOT_TOKEN, SWITCHBOARD_SLACK_SIGNING_SECRET: SIGNING_SECRET };
}
