import type { ConversationRef, OutboundMessage, PostedMessage } from "@switchboard/core";
import type { AdapterHarness, ObservedPost, SimulatedMessage } from "@switchboard/core/testing";
// The class itself, not the package's factory: the harness extends it.
import { SlackAdapter } from "../../../packages/slack/src/slack-adapter.ts";
import { FakeSlack, type SayOptions, type Transport } from "./fake-slack.ts";
import {
  ALICE,
  ALICE_DM,
  BOT_ID,
  BOT_USER_ID,
  GENERAL,
  OTHER_BOT_ID,
  OTHER_BOT_USER_ID,
  type StoredMessage,
  TEAM_ID,
} from "./workspace-state.ts";

/** Where Slack shows a bot message, in conversation terms: its thread, or the top level of a DM. */
export function placeOf(message: StoredMessage): ConversationRef {
  return {
    platform: "slack",
    path: message.thread_ts ? [TEAM_ID, message.channel, message.thread_ts] : [TEAM_ID, message.channel],
  };
}

export function observedPosts(
  slack: FakeSlack,
  visible: (id: string) => boolean = () => true,
): ObservedPost[] {
  return slack.state
    .botMessages()
    .filter((message) => visible(`${message.channel}:${message.ts}`))
    .map((message) => {
      const replyTo = message.metadata?.event_payload.in_reply_to;
      return {
        id: `${message.channel}:${message.ts}`,
        conversation: placeOf(message),
        text: message.text,
        ...(typeof replyTo === "string" ? { replyTo } : {}),
      };
    });
}

/** How a Slack user writes what the contract asks: mentions as `<@BOT>`, commands as `@bot word` (Slack keeps `/…` for itself). */
function slackText(message: SimulatedMessage): string {
  if (message.text.startsWith("/")) return `<@${BOT_USER_ID}> ${message.text.slice(1)}`;
  return message.mention ? `<@${BOT_USER_ID}> ${message.text}` : message.text;
}

function whereToSay(slack: FakeSlack, message: SimulatedMessage): { channel: string; threadTs?: string } {
  if (message.place === "dm") return { channel: ALICE_DM };
  if (message.place === "channel") {
    if (message.replyTo === undefined) return { channel: GENERAL };
    // Slack has no replies outside threads: replying to a message means writing in its thread.
    const [channel = "", ts = ""] = message.replyTo.split(":");
    const replied = slack.state.find(channel, ts);
    if (!replied) throw new Error(`no message ${message.replyTo} to reply to`);
    return { channel, threadTs: replied.thread_ts ?? replied.ts };
  }
  const [, channel = "", third] = message.place.conversation.path;
  return third && !third.startsWith("@") ? { channel, threadTs: third } : { channel };
}

/**
 * The real adapter, noting which posts it has reported back. The engine records a conversation as
 * one the bot takes part in only after `post` returns; a test that answers a post it saw on the
 * fake Slack any sooner would race that (no person types that fast).
 */
class ReportingSlackAdapter extends SlackAdapter {
  readonly reported = new Set<string>();

  override async post(message: OutboundMessage): Promise<PostedMessage> {
    const posted = await super.post(message);
    // One macrotask later the engine's in-memory bookkeeping for this post is done.
    setImmediate(() => this.reported.add(posted.id));
    return posted;
  }
}

/** The adapter contract's harness: the real adapter (and Bolt) against the fake Slack. */
export async function createSlackHarness(
  transport: Transport,
): Promise<AdapterHarness & { slack: FakeSlack; adapter: SlackAdapter }> {
  const slack = await FakeSlack.start({ transport });
  const adapter = new ReportingSlackAdapter(slack.adapterConfig());
  if (transport === "http") slack.connectHttp(() => adapter.port);
  return {
    slack,
    adapter,
    sampleConversations: [
      { platform: "slack", path: [TEAM_ID, GENERAL, "1700000000.000100"] },
      { platform: "slack", path: [TEAM_ID, ALICE_DM] },
      { platform: "slack", path: [TEAM_ID, ALICE_DM, "1700000000.000200"] },
      { platform: "slack", path: [TEAM_ID, GENERAL, `@${ALICE}`] },
    ],
    platformMessageLimit: 4_000,
    measure: (text) => text.length,
    async userSays(message) {
      const from: SayOptions =
        message.from === "self"
          ? { user: BOT_USER_ID, botId: BOT_ID }
          : message.from === "other-bot"
            ? { user: OTHER_BOT_USER_ID, botId: OTHER_BOT_ID }
            : {};
      const { channel, threadTs } = whereToSay(slack, message);
      const said = await slack.say(channel, slackText(message), {
        ...from,
        ...(threadTs ? { threadTs } : {}),
      });
      return `${said.channel}:${said.ts}`;
    },
    async redeliverLast() {
      await slack.redeliverLast();
    },
    posts: () => observedPosts(slack, (id) => adapter.reported.has(id)),
    async close() {
      await adapter.stop();
      await slack.close();
    },
  };
}
