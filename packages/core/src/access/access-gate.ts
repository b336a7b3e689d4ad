import type { InboundMessage } from "../conversation/messages.ts";
import { encodeConversationKey } from "../conversation/ref.ts";
import type { Clock } from "../runtime/clock.ts";
import type { AccessConfig, PlatformAccess } from "./access-config.ts";
import { decideAccess } from "./access-policy.ts";
import { formatCode, type Pairings } from "./pairings.ts";

/** Where a message was written, as access lists name it (the adapter knows its platform's ids). */
export interface AccessPlace {
  /** Channel or room id; for a thread, the channel it is in. */
  readonly place: string;
  /** Workspace, server (guild) or homeserver. */
  readonly space?: string;
}

/**
 * `allow`: on to the queue. `deny`: dropped unanswered. `pair`: dropped; `reply` (when not null) is
 * what to tell the sender — their pairing code — in their direct conversation.
 */
export type AccessVerdict =
  | { readonly kind: "allow" }
  | { readonly kind: "deny" }
  | { readonly kind: "pair"; readonly reply: string | null };

export interface AccessGateOptions {
  readonly config: AccessConfig;
  /** Always let in (`requests.admins`). */
  readonly admins: readonly string[];
  readonly pairings: Pairings;
  readonly clock: Clock;
}

const PLATFORMS_WITH_POLICY = new Set(["slack", "discord", "matrix"]);

/**
 * Who may talk to the bot, checked at intake before anything is queued. Platforms without a
 * policy section (the operator's own console, custom adapters) are always let in.
 */
export class AccessGate {
  readonly #options: AccessGateOptions;
  readonly #admins: ReadonlySet<string>;

  constructor(options: AccessGateOptions) {
    this.#options = options;
    this.#admins = new Set(options.admins);
  }

  policyFor(platform: string): PlatformAccess | undefined {
    if (!PLATFORMS_WITH_POLICY.has(platform)) return undefined;
    return this.#options.config[platform as "slack" | "discord" | "matrix"];
  }

  /** True when someone, somewhere, could be asked for a pairing code (the console shows the page). */
  get pairingOn(): boolean {
    const { slack, discord, matrix } = this.#options.config;
    return [slack, discord, matrix].some((policy) => policy.dm === "pairing");
  }

  /** `prefix`: the command prefix to name in the code's instructions (`/`, or `!` on Matrix). */
  async check(message: InboundMessage, where: AccessPlace, prefix: string): Promise<AccessVerdict> {
    const platform = message.conversation.platform;
    const policy = this.policyFor(platform);
    if (policy === undefined) return { kind: "allow" };
    const decision = decideAccess(policy, {
      isDirect: message.isDirect,
      userId: message.author.id,
      place: where.place,
      ...(where.space === undefined ? {} : { space: where.space }),
      isAdmin: this.#admins.has(message.author.id),
    });
    if (decision !== "pair") return { kind: decision };
    const { pairings } = this.#options;
    if (await pairings.isApproved(platform, message.author.id)) return { kind: "allow" };
    const requested = await pairings.request({
      platform,
      userId: message.author.id,
      ...(message.author.displayName === undefined ? {} : { userName: message.author.displayName }),
      conversation: encodeConversationKey(message.conversation),
    });
    if (!requested.tell) return { kind: "pair", reply: null };
    const code = formatCode(requested.code);
    const minutes = Math.max(1, Math.round((requested.expiresAt - this.#options.clock.now()) / 60_000));
    return {
      kind: "pair",
      reply:
        `I only answer people an admin has let in. Your pairing code is **${code}** (valid for ${minutes} min). ` +
        `Send it to an admin: they approve it with \`switchboard pairing approve ${code}\`, on the console's Access page, ` +
        `or by sending me \`${prefix}pair ${code}\`. Your next message after that is answered.`,
    };
  }
}
