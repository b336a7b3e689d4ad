import { randomInt } from "node:crypto";
import type Keyv from "keyv";
import type { Clock } from "../runtime/clock.ts";
import type { Store } from "../store/types.ts";

/** A direct-message sender waiting for an admin to approve their code. */
export interface PendingPairing {
  readonly code: string;
  readonly platform: string;
  readonly userId: string;
  readonly userName?: string;
  /** The direct conversation the code was given in (where the approval is announced). */
  readonly conversation: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** When the person was last told the code (reminders are spaced out). */
  readonly toldAt: number;
}

/** A person an admin let in; durable until revoked. */
export interface PairingApproval {
  readonly platform: string;
  readonly userId: string;
  readonly userName?: string;
  readonly conversation?: string;
  readonly approvedBy: string;
  readonly approvedAt: number;
}

export type ApproveOutcome =
  | { readonly outcome: "approved"; readonly approval: PairingApproval }
  | { readonly outcome: "unknown" }
  | { readonly outcome: "expired"; readonly pending: PendingPairing };

export interface PairingsOptions {
  readonly store: Store;
  readonly clock: Clock;
  readonly codeMinutes: number;
  readonly reminderMinutes: number;
}

/** Letters and digits no one confuses when reading them out (no 0/O, 1/I/L). */
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
const PENDING_SET = "pairing:pending";
const APPROVED_SET = "pairing:approved";
/** Expired codes are kept this long after expiry, so approving one says "expired", not "unknown". */
const EXPIRED_KEPT_MS = 24 * 60 * 60_000;

/** `abcd efgh`, `ABCD-EFGH` → `ABCDEFGH`: how people type a code back. */
export function normalizeCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, "");
}

/** `ABCDEFGH` → `ABCD-EFGH`, as shown. */
export function formatCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

function newCode(): string {
  let code = "";
  for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

function userKey(platform: string, userId: string): string {
  return `${platform}|${userId}`;
}

/**
 * DM pairing: codes for unknown senders, approvals by admins, revocation. Kept in the shared store,
 * so every instance sees an approval at once. Listing reads two sorted sets, never a scan.
 */
export class Pairings {
  readonly #options: PairingsOptions;
  readonly #codes: Keyv<PendingPairing>;
  readonly #codeOfUser: Keyv<string>;
  readonly #approvals: Keyv<PairingApproval>;

  constructor(options: PairingsOptions) {
    this.#options = options;
    this.#codes = options.store.namespace<PendingPairing>("pairing-codes");
    this.#codeOfUser = options.store.namespace<string>("pairing-code-of-user");
    this.#approvals = options.store.namespace<PairingApproval>("pairing-approvals");
  }

  async isApproved(platform: string, userId: string): Promise<boolean> {
    return (await this.#approvals.get(userKey(platform, userId))) !== undefined;
  }

  /**
   * The code of an unknown sender (a new one when they have none that is still valid), and whether
   * to tell it now: on the first message, then at most once per reminder interval.
   */
  async request(input: {
    platform: string;
    userId: string;
    userName?: string;
    conversation: string;
  }): Promise<{ readonly code: string; readonly tell: boolean; readonly expiresAt: number }> {
    const now = this.#options.clock.now();
    const key = userKey(input.platform, input.userId);
    const existingCode = await this.#codeOfUser.get(key);
    const existing = existingCode === undefined ? undefined : await this.#codes.get(existingCode);
    if (existing !== undefined && existing.expiresAt > now) {
      const due = now - existing.toldAt >= this.#options.reminderMinutes * 60_000;
      if (due) await this.#save({ ...existing, toldAt: now });
      return { code: existing.code, tell: due, expiresAt: existing.expiresAt };
    }
    const pending: PendingPairing = {
      code: newCode(),
      platform: input.platform,
      userId: input.userId,
      ...(input.userName === undefined ? {} : { userName: input.userName }),
      conversation: input.conversation,
      createdAt: now,
      expiresAt: now + this.#options.codeMinutes * 60_000,
      toldAt: now,
    };
    await this.#save(pending);
    await this.#codeOfUser.set(key, pending.code, pending.expiresAt - now);
    return { code: pending.code, tell: true, expiresAt: pending.expiresAt };
  }

  async approve(typedCode: string, approvedBy: string): Promise<ApproveOutcome> {
    const code = normalizeCode(typedCode);
    const pending = await this.#codes.get(code);
    if (pending === undefined) return { outcome: "unknown" };
    const now = this.#options.clock.now();
    if (pending.expiresAt <= now) return { outcome: "expired", pending };
    const approval: PairingApproval = {
      platform: pending.platform,
      userId: pending.userId,
      ...(pending.userName === undefined ? {} : { userName: pending.userName }),
      conversation: pending.conversation,
      approvedBy,
      approvedAt: now,
    };
    const key = userKey(pending.platform, pending.userId);
    // The approval first: a crash after it leaves a used code behind, never a lost approval.
    await this.#approvals.set(key, approval);
    await this.#options.store.sortedSets.apply([
      { set: APPROVED_SET, member: key, score: now },
      { set: PENDING_SET, member: code, score: null },
    ]);
    await this.#codes.delete(code);
    await this.#codeOfUser.delete(key);
    return { outcome: "approved", approval };
  }

  /** Takes an approval back: the person's next direct message gets a new code. */
  async revoke(platform: string, userId: string): Promise<PairingApproval | undefined> {
    const key = userKey(platform, userId);
    const approval = await this.#approvals.get(key);
    if (approval === undefined) return undefined;
    await this.#approvals.delete(key);
    await this.#options.store.sortedSets.apply([{ set: APPROVED_SET, member: key, score: null }]);
    return approval;
  }

  /** Codes not yet approved, soonest expiry first; expired ones are dropped from the list as they are met. */
  async pending(limit = 200): Promise<PendingPairing[]> {
    const now = this.#options.clock.now();
    const members = await this.#options.store.sortedSets.upTo(PENDING_SET, Number.POSITIVE_INFINITY, limit);
    const found: PendingPairing[] = [];
    const gone: string[] = [];
    for (const { member } of members) {
      const pending = await this.#codes.get(member);
      if (pending === undefined || pending.expiresAt <= now) gone.push(member);
      else found.push(pending);
    }
    if (gone.length > 0)
      await this.#options.store.sortedSets.apply(
        gone.map((member) => ({ set: PENDING_SET, member, score: null })),
      );
    return found;
  }

  /** Everyone approved, oldest approval first. */
  async approved(limit = 500): Promise<PairingApproval[]> {
    const members = await this.#options.store.sortedSets.upTo(APPROVED_SET, Number.POSITIVE_INFINITY, limit);
    const found: PairingApproval[] = [];
    for (const { member } of members) {
      const approval = await this.#approvals.get(member);
      if (approval !== undefined) found.push(approval);
    }
    return found;
  }

  async #save(pending: PendingPairing): Promise<void> {
    const now = this.#options.clock.now();
    await this.#codes.set(pending.code, pending, pending.expiresAt - now + EXPIRED_KEPT_MS);
    await this.#options.store.sortedSets.apply([
      { set: PENDING_SET, member: pending.code, score: pending.expiresAt },
    ]);
  }
}
