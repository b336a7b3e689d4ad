export interface ScopeNeeds {
  readonly directMessages: boolean;
  readonly reactions: boolean;
  /** Agents have identities (`display` in the team config): posting under their names needs a scope. */
  readonly identities?: boolean;
}

export interface ScopeCheck {
  /** Without these the bot cannot do its job: start-up fails. */
  readonly missingRequired: readonly string[];
  /** Without these some features are off (private channels, the slash command, time zones, the reaction indicator, agents' own names and icons): a warning. */
  readonly missingRecommended: readonly string[];
}

/** The bot token scopes each feature needs. */
export function neededScopes(needs: ScopeNeeds): { required: string[]; recommended: string[] } {
  const required = ["app_mentions:read", "chat:write", "channels:history"];
  if (needs.directMessages) required.push("im:history");
  // Files people share are read with files:read; files the team makes are uploaded with files:write;
  // users:read gives people's time zones (users.info), for the date agents see and their reminders.
  const recommended = ["groups:history", "commands", "files:read", "files:write", "users:read"];
  if (needs.reactions) recommended.push("reactions:write");
  // chat:write.customize: each agent's message under its own name and icon (username, icon_*).
  if (needs.identities) recommended.push("chat:write.customize");
  return { required, recommended };
}

/**
 * The bot events the adapter listens to (`app_mention` and `message`, see receive/bolt-listeners.ts),
 * as the subscriptions an app manifest names: messages in public and private channels, and DMs.
 */
export function subscribedEvents(needs: Pick<ScopeNeeds, "directMessages">): string[] {
  return [
    "app_mention",
    "message.channels",
    "message.groups",
    ...(needs.directMessages ? ["message.im"] : []),
  ];
}

export function checkScopes(granted: readonly string[], needs: ScopeNeeds): ScopeCheck {
  const have = new Set(granted);
  const { required, recommended } = neededScopes(needs);
  return {
    missingRequired: required.filter((scope) => !have.has(scope)),
    missingRecommended: recommended.filter((scope) => !have.has(scope)),
  };
}
