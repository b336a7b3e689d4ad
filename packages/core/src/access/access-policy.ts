import type { PlatformAccess } from "./access-config.ts";

/** What the policy needs to know about one message's sender and place. */
export interface AccessFacts {
  readonly isDirect: boolean;
  readonly userId: string;
  /** Channel or room id (for a thread: the channel it is in). */
  readonly place: string;
  /** Workspace, server (guild) or homeserver, where the platform has one. */
  readonly space?: string;
  readonly isAdmin: boolean;
}

/**
 * `allow`: answer as usual. `deny`: not answered, nothing said (the place or person is not let in).
 * `pair`: a direct message from someone the policy does not know yet, in `pairing` mode — unless
 * an admin already approved them (asked only then, since it costs a store read).
 */
export type AccessDecision = "allow" | "deny" | "pair";

/** The policy alone, without the store: pure, so every case is a unit test. */
export function decideAccess(policy: PlatformAccess, facts: AccessFacts): AccessDecision {
  if (facts.isAdmin) return "allow";
  const listedUser = policy.users.includes(facts.userId);
  if (facts.isDirect) {
    switch (policy.dm) {
      case "open":
        return "allow";
      case "disabled":
        return "deny";
      case "allowlist":
        return listedUser ? "allow" : "deny";
      case "pairing":
        return listedUser ? "allow" : "pair";
    }
  }
  if (policy.groups === "open") return "allow";
  const placesListed = policy.places.length > 0 || policy.spaces.length > 0;
  const placeOk =
    !placesListed ||
    policy.places.includes(facts.place) ||
    (facts.space !== undefined && policy.spaces.includes(facts.space));
  const userOk = policy.users.length === 0 || listedUser;
  return placeOk && userOk ? "allow" : "deny";
}
