export interface InvitePolicy {
  readonly autoJoin: boolean;
  /** MXIDs whose invites are accepted. */
  readonly inviters: readonly string[];
  /** Homeservers whose users' invites are accepted; `*` accepts any. */
  readonly inviteServers: readonly string[];
  readonly botUserId: string;
}

export interface InviteDecision {
  readonly accept: boolean;
  readonly reason: string;
}

/** `@alice:example.org:8448` → `example.org:8448`. */
export function serverOf(userId: string): string {
  return userId.slice(userId.indexOf(":") + 1);
}

/**
 * Whether to join a room the bot was invited to. With neither list configured, only users of the
 * bot's own homeserver may invite it: a bot reachable by anyone on the federation is a choice the
 * operator makes explicitly (`inviteServers: ["*"]`).
 */
export function decideInvite(inviter: string, policy: InvitePolicy): InviteDecision {
  if (!policy.autoJoin) return { accept: false, reason: "auto-join is off" };
  if (policy.inviters.includes(inviter)) return { accept: true, reason: "inviter is listed in inviters" };
  const server = serverOf(inviter);
  if (policy.inviteServers.includes("*")) return { accept: true, reason: "inviteServers allows any server" };
  if (policy.inviteServers.includes(server)) return { accept: true, reason: `inviteServers lists ${server}` };
  if (policy.inviters.length === 0 && policy.inviteServers.length === 0) {
    return server === serverOf(policy.botUserId)
      ? { accept: true, reason: "inviter is on the bot's own homeserver" }
      : {
          accept: false,
          reason: `only users of ${serverOf(policy.botUserId)} may invite (set inviters / inviteServers)`,
        };
  }
  return { accept: false, reason: "inviter is not in inviters and its server is not in inviteServers" };
}
