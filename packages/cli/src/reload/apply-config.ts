import type { Team } from "@switchboard/core";
import type { DeclaredSchedule } from "@switchboard/core/config";
import type { AccessGate } from "@switchboard/core/host";
import type { SwitchboardConfig } from "../config/schema.ts";
import { differs, sectionsNeedingRestart } from "./config-diff.ts";

/** What a reload changed, and what it kept because only a restart can change it. */
export interface Reconfigured {
  readonly changed: readonly string[];
  readonly needsRestart: readonly string[];
}

/** The running parts a reload can change in place. */
export interface LiveParts {
  readonly team: Pick<Team, "reconfigure">;
  readonly access: Pick<AccessGate, "reconfigure">;
  readonly schedules: { syncDeclared(declared: readonly DeclaredSchedule[]): Promise<void> };
}

/**
 * Applies what can change live from `next` (prompts, descriptions, limits, access lists, declared
 * schedules) and names the sections that differ from `current` but need a restart.
 */
export async function applyConfig(
  parts: LiveParts,
  current: SwitchboardConfig,
  next: SwitchboardConfig,
): Promise<Reconfigured> {
  const team = parts.team.reconfigure({ config: next.team, limits: next.limits });
  const changed = [...team.changed];
  if (differs(next.access, current.access)) {
    // Admins (`requests.admins`) are read at start like the rest of `requests`.
    parts.access.reconfigure(next.access, current.requests.admins);
    changed.push("access");
  }
  if (differs(next.schedules.declared, current.schedules.declared)) {
    await parts.schedules.syncDeclared(next.schedules.declared);
    changed.push("schedules.declared");
  }
  return { changed, needsRestart: [...team.needsRestart, ...sectionsNeedingRestart(next, current)] };
}
