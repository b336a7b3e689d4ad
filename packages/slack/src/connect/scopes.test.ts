import { describe, expect, it } from "vitest";
import { checkScopes } from "./scopes.ts";

const ALL = [
  "app_mentions:read",
  "chat:write",
  "channels:history",
  "im:history",
  "groups:history",
  "commands",
  "users:read",
  "reactions:write",
  "files:read",
  "files:write",
];

describe("checkScopes", () => {
  const cases = [
    {
      name: "everything granted",
      granted: ALL,
      needs: { directMessages: true, reactions: true },
      required: [],
      recommended: [],
    },
    {
      name: "no history scopes",
      granted: ["app_mentions:read", "chat:write"],
      needs: { directMessages: true, reactions: false },
      required: ["channels:history", "im:history"],
      recommended: ["groups:history", "commands", "files:read", "files:write", "users:read"],
    },
    {
      name: "DMs off: im:history not needed",
      granted: [
        "app_mentions:read",
        "chat:write",
        "channels:history",
        "groups:history",
        "commands",
        "files:read",
        "files:write",
        "users:read",
      ],
      needs: { directMessages: false, reactions: false },
      required: [],
      recommended: [],
    },
    {
      name: "reaction indicator without reactions:write",
      granted: ALL.filter((scope) => scope !== "reactions:write"),
      needs: { directMessages: true, reactions: true },
      required: [],
      recommended: ["reactions:write"],
    },
    {
      name: "agent identities without chat:write.customize",
      granted: ALL,
      needs: { directMessages: true, reactions: true, identities: true },
      required: [],
      recommended: ["chat:write.customize"],
    },
    {
      name: "agent identities with chat:write.customize",
      granted: [...ALL, "chat:write.customize"],
      needs: { directMessages: true, reactions: true, identities: true },
      required: [],
      recommended: [],
    },
  ];
  for (const { name, granted, needs, required, recommended } of cases) {
    it(name, () => {
      expect(checkScopes(granted, needs)).toEqual({
        missingRequired: required,
        missingRecommended: recommended,
      });
    });
  }
});
