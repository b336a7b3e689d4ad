import { describe, expect, it } from "vitest";
import { decideInvite, serverOf } from "./invite-policy.ts";

const base = { autoJoin: true, inviters: [], inviteServers: [], botUserId: "@bot:home.org" };

describe("decideInvite", () => {
  it.each([
    ["nothing configured: own homeserver", "@alice:home.org", base, true],
    ["nothing configured: another homeserver", "@eve:other.org", base, false],
    [
      "listed inviter on another server",
      "@carol:other.org",
      { ...base, inviters: ["@carol:other.org"] },
      true,
    ],
    [
      "unlisted inviter once inviters are set, even on the own server",
      "@alice:home.org",
      { ...base, inviters: ["@carol:other.org"] },
      false,
    ],
    ["listed server", "@dave:partner.org", { ...base, inviteServers: ["partner.org"] }, true],
    [
      "server with port must match exactly",
      "@dave:partner.org:8448",
      { ...base, inviteServers: ["partner.org"] },
      false,
    ],
    ["wildcard server", "@anyone:anywhere.net", { ...base, inviteServers: ["*"] }, true],
    [
      "auto-join off beats every list",
      "@carol:other.org",
      { ...base, autoJoin: false, inviters: ["@carol:other.org"] },
      false,
    ],
  ])("%s", (_name, inviter, policy, accept) => {
    expect(decideInvite(inviter, policy).accept).toBe(accept);
  });

  it("explains a refusal in terms of the options to change", () => {
    expect(decideInvite("@eve:other.org", base).reason).toMatch(/inviters \/ inviteServers/);
  });
});

describe("serverOf", () => {
  it.each([
    ["@a:example.org", "example.org"],
    ["@a:example.org:8448", "example.org:8448"],
  ])("%s → %s", (userId, server) => {
    expect(serverOf(userId)).toBe(server);
  });
});
