/**
 * What the bot posted for each origin message, read from the Slack stand-in, and the one property
 * crash tests assert: every origin got exactly one complete answer — each expected part posted
 * exactly once, in its thread, in order.
 */
import { BOT_ID, type StoredMessage, type WorkspaceState } from "../slack/workspace-state.ts";
import type { Origin } from "./slack-traffic.ts";

export interface AnswerReport {
  /** Origins with no post at all. */
  readonly lost: string[];
  /** Origins with some part posted more than once (`token: part ×n`). */
  readonly doubled: string[];
  /** Origins with some but not all parts, or parts out of order. */
  readonly incomplete: string[];
  readonly complete: number;
  /** Bot posts in the origins' threads that answer none of them (error sentences, notices). */
  readonly strays: string[];
}

/** The bot's posts in `origin`'s thread that belong to it (they repeat its token). */
export function postsFor(state: WorkspaceState, origin: Origin): StoredMessage[] {
  return state
    .thread(origin.message.channel, origin.threadTs)
    .filter((message) => message.bot_id === BOT_ID && mentionsToken(message.text, origin.token));
}

/**
 * `parts(token)` lists what one complete answer consists of, each a text that appears in exactly
 * one post (a one-part answer: `[answer text]`).
 */
export function answerReport(
  state: WorkspaceState,
  origins: readonly Origin[],
  parts: (token: string) => readonly string[],
): AnswerReport {
  const lost: string[] = [];
  const doubled: string[] = [];
  const incomplete: string[] = [];
  let complete = 0;
  const strays = new Set<string>();
  const tokens = new Set(origins.map((origin) => origin.token));
  for (const origin of origins) {
    for (const post of state.thread(origin.message.channel, origin.threadTs)) {
      const answersOne = [...tokens].some((token) => mentionsToken(post.text, token));
      if (post.bot_id === BOT_ID && !answersOne) strays.add(`${origin.threadTs}: ${post.text.slice(0, 120)}`);
    }
    const posts = postsFor(state, origin);
    if (posts.length === 0) {
      lost.push(origin.token);
      continue;
    }
    const expected = parts(origin.token);
    const counts = expected.map((part) => posts.filter((post) => post.text.includes(part)).length);
    const twice = expected.flatMap((part, index) =>
      (counts[index] ?? 0) > 1 ? [`"${part}" ×${counts[index]}`] : [],
    );
    if (twice.length > 0) {
      doubled.push(`${origin.token}: ${twice.join(", ")}`);
      continue;
    }
    const positions = expected.map((part) => posts.findIndex((post) => post.text.includes(part)));
    const inOrder = positions.every(
      (position, index) => position >= 0 && (index === 0 || position > (positions[index - 1] ?? -1)),
    );
    if (!inOrder || posts.length !== expected.length) {
      incomplete.push(`${origin.token}: ${posts.length} post(s), parts at ${positions.join(",")}`);
      continue;
    }
    complete += 1;
  }
  return { lost, doubled, incomplete, complete, strays: [...strays] };
}

function mentionsToken(text: string, token: string): boolean {
  return new RegExp(`\\b${token}\\b`).test(text);
}
