import { openStore, systemClock } from "@switchboard/core";
import { formatCode, Pairings } from "@switchboard/core/host";
import type { CliContext, CommonOptions } from "../cli-context.ts";
import { loadConfig } from "../config/load-config.ts";
import { reportStartupFailure } from "./startup-failure.ts";

export const PAIRING_USAGE = `switchboard pairing list                      codes waiting for approval, and who is approved
switchboard pairing approve <code>            let in the person who was given <code>
switchboard pairing revoke <platform> <user>  take an approval back (e.g. slack U0123ABCD)`;

/**
 * `switchboard pairing …`: DM pairing from the terminal, on the configured store — the running bot
 * sees an approval or a revocation at the person's next message (the store is shared).
 */
export async function pairingCommand(
  options: CommonOptions & { args: readonly string[] },
  context: CliContext,
): Promise<number> {
  const [action = "list", ...rest] = options.args;
  const arity: Record<string, number> = { list: 0, approve: 1, revoke: 2 };
  if (arity[action] === undefined || rest.length !== arity[action]) {
    context.stderr.write(`switchboard: pairing takes one of:\n${PAIRING_USAGE}\n`);
    return 2;
  }
  let store: Awaited<ReturnType<typeof openStore>> | undefined;
  try {
    const { config } = await loadConfig({ path: options.config, cwd: context.cwd, env: context.env });
    store = await openStore(config.store, { cwd: context.cwd });
    const pairings = new Pairings({
      store,
      clock: systemClock,
      codeMinutes: config.access.pairingCodeMinutes,
      reminderMinutes: config.access.pairingReminderMinutes,
    });
    const who = (one: { userName?: string; userId: string; platform: string }) =>
      `${one.userName ? `${one.userName} ` : ""}(${one.platform} ${one.userId})`;
    if (action === "approve") {
      const result = await pairings.approve(rest[0] ?? "", "switchboard pairing approve");
      if (result.outcome === "approved") {
        context.stdout.write(`Approved: ${who(result.approval)} can talk to the bot now.\n`);
        return 0;
      }
      context.stderr.write(
        result.outcome === "expired"
          ? `switchboard: code ${formatCode(result.pending.code)} of ${who(result.pending)} has expired; their next message gets a new one\n`
          : `switchboard: no pairing code ${rest[0]} is waiting (check the code; codes expire after ${config.access.pairingCodeMinutes} min)\n`,
      );
      return 1;
    }
    if (action === "revoke") {
      const [platform = "", userId = ""] = rest;
      const revoked = await pairings.revoke(platform, userId);
      if (!revoked) {
        context.stderr.write(`switchboard: ${platform} user ${userId} is not approved\n`);
        return 1;
      }
      context.stdout.write(`Revoked: ${who(revoked)} gets a new code at their next message.\n`);
      return 0;
    }
    const now = systemClock.now();
    const [pending, approved] = await Promise.all([pairings.pending(), pairings.approved()]);
    const lines = [`Waiting for approval (${pending.length}):`];
    for (const one of pending)
      lines.push(
        `  ${formatCode(one.code)}  ${who(one)}  expires in ${Math.ceil((one.expiresAt - now) / 60_000)} min`,
      );
    lines.push(`Approved (${approved.length}):`);
    for (const one of approved)
      lines.push(`  ${who(one)}  by ${one.approvedBy} at ${new Date(one.approvedAt).toISOString()}`);
    context.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  } catch (error) {
    return reportStartupFailure(error, context.stderr);
  } finally {
    await store?.close();
  }
}
