import { z } from "zod";

/** `<platform>:<user id>`, e.g. `slack:U0ALICE`, `discord:81234`, `matrix:@ana:example.org`. */
const platformUser = z
  .string()
  .regex(/^[a-z][a-z0-9-]*:.+$/, "a platform and a user id, e.g. slack:U0ALICE or matrix:@ana:example.org");

/**
 * The top-level `identities:` section: one person, several platform accounts. A person's learnings
 * follow them across threads of one platform on their own; across platforms only where an operator
 * lists their accounts here (nothing on a platform proves two accounts are one person).
 */
export const identitiesConfigSchema = z
  .record(z.string().regex(/^[\w.-]+$/, "letters, digits, `_`, `.` or `-`"), z.array(platformUser).min(1))
  .superRefine((people, context) => {
    // One account, two people: each would see the other's learnings. Refused where the file says it.
    const owner = new Map<string, string>();
    for (const [person, accounts] of Object.entries(people))
      for (const [index, account] of accounts.entries()) {
        const first = owner.get(account);
        if (first && first !== person)
          context.addIssue({
            code: "custom",
            path: [person, index],
            message: `${account} is already listed for ${first}`,
            input: account,
          });
        owner.set(account, first ?? person);
      }
  })
  .default({})
  .describe(
    "People with accounts on several platforms: `ana: [slack:U0ALICE, matrix:@ana:example.org]`. Their learnings (`remember` with scope user) are one list on all of them.",
  );

export type IdentitiesConfig = z.output<typeof identitiesConfigSchema>;

/** An account listed for two people: learnings would leak from one to the other. */
export class IdentityConflictError extends Error {
  constructor(account: string, first: string, second: string) {
    super(`identities: ${account} is listed for both ${first} and ${second}`);
    this.name = "IdentityConflictError";
  }
}

/** Who a platform account is: the linked person (`person:ana`), else the account itself (`slack:U0ALICE`). */
export class Identities {
  readonly #personOf = new Map<string, string>();

  constructor(config: IdentitiesConfig = {}) {
    for (const [person, accounts] of Object.entries(config)) {
      for (const account of accounts) {
        const known = this.#personOf.get(account);
        if (known && known !== person) throw new IdentityConflictError(account, known, person);
        this.#personOf.set(account, person);
      }
    }
  }

  personOf(platform: string, userId: string): string {
    const account = `${platform}:${userId}`;
    const person = this.#personOf.get(account);
    return person ? `person:${person}` : account;
  }
}
