import { type Command, type Store, systemClock } from "@switchboard/core";
import { AccessGate, Pairings, pairCommand } from "@switchboard/core/host";
import type { SwitchboardConfig } from "../config/schema.ts";

export interface ConfiguredAccess {
  readonly gate: AccessGate;
  readonly pairings: Pairings;
  readonly commands: readonly Command[];
}

/** `access:` — who may talk to the bot per platform, and DM pairing (codes, approvals). */
export function createConfiguredAccess(config: SwitchboardConfig, store: Store): ConfiguredAccess {
  const pairings = new Pairings({
    store,
    clock: systemClock,
    codeMinutes: config.access.pairingCodeMinutes,
    reminderMinutes: config.access.pairingReminderMinutes,
  });
  const gate = new AccessGate({
    config: config.access,
    admins: config.requests.admins,
    pairings,
    clock: systemClock,
  });
  return { gate, pairings, commands: [pairCommand({ pairings, admins: config.requests.admins })] };
}
