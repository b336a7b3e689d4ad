import type { ChatStreamer, WebClient } from "@slack/web-api";
import type { NativeTextStream, OutboundMessage, PostedMessage } from "@switchboard/core/adapter";
import { messageId, postTargetOf } from "../conversations.ts";
import { explainSlackError, platformErrorCode } from "../slack-api-errors.ts";
import { slackFace } from "./agent-face.ts";
import type { SlackPoster } from "./slack-poster.ts";

/** Refusals that mean the app cannot stream here (not a passing failure): edits are used instead. */
const STREAMING_UNAVAILABLE = new Set([
  "unknown_method",
  "not_allowed",
  "not_allowed_token_type",
  "feature_not_enabled",
  "missing_scope",
  "not_in_thread",
  "invalid_thread_ts",
]);

export interface AnswerStreamOptions {
  readonly client: WebClient;
  readonly poster: SlackPoster;
  readonly message: OutboundMessage;
  /** False once Slack refused streaming to this app: go straight to post + edit. */
  readonly nativeAllowed: boolean;
  readonly onNativeRefused: (slackError: string) => void;
  /** The app may post under the agent's name and icon (chat:write.customize). */
  readonly customize: boolean;
}

/**
 * The first message of a streamed answer on Slack: the Web API's own streaming
 * (chat.startStream / appendStream / stopStream, through the SDK's chat streamer) in threads;
 * where Slack does not offer it to the app — or outside threads — a posted message that grows
 * by chat.update. Either way the engine paces the calls.
 */
export class SlackAnswerStream implements NativeTextStream {
  readonly #options: AnswerStreamOptions;
  readonly #streamer: ChatStreamer | undefined;
  #native: boolean;
  #text = "";
  #posted: PostedMessage | undefined;
  /** Without chat:write.customize: the agent's name, in bold, streamed first. */
  #namePrefix: string;

  constructor(options: AnswerStreamOptions) {
    this.#options = options;
    const target = postTargetOf(options.message.conversation);
    const [team] = options.message.conversation.path;
    const { identity } = options.message;
    const face = slackFace("", identity, options.customize);
    this.#namePrefix = identity && !face.authorship ? `${face.markdown} ` : "";
    this.#native = options.nativeAllowed && target.kind === "thread";
    this.#streamer =
      this.#native && target.kind === "thread"
        ? options.client.chatStream({
            channel: target.channel,
            thread_ts: target.threadTs,
            ...(team ? { recipient_team_id: team } : {}),
            ...(options.message.recipientId ? { recipient_user_id: options.message.recipientId } : {}),
            ...face.authorship,
            // Every append goes out at once: the engine already spaces them to Slack's limits.
            buffer_size: 1,
          })
        : undefined;
  }

  async append(markdown: string): Promise<PostedMessage | undefined> {
    const first = this.#text === "";
    this.#text += markdown;
    if (this.#native && this.#streamer) {
      try {
        await this.#streamer.append({ markdown_text: first ? this.#namePrefix + markdown : markdown });
        return this.#rememberTs(this.#streamer.ts);
      } catch (error) {
        const code = platformErrorCode(error);
        // Refused before anything showed: this app cannot stream here; edits do the same job.
        if (this.#posted || code === undefined || !STREAMING_UNAVAILABLE.has(code))
          explainSlackError("chat.appendStream", error);
        this.#native = false;
        this.#options.onNativeRefused(code);
      }
    }
    const { poster, message } = this.#options;
    // The poster shows the agent's identity (name and icon, or the name in front) on both.
    if (this.#posted) await poster.edit(this.#withIdentity(this.#posted), this.#text);
    else this.#posted = await poster.post({ ...message, text: this.#text });
    return this.#posted;
  }

  async stop(): Promise<PostedMessage> {
    if (this.#native && this.#streamer) {
      await this.#streamer.stop().catch((error: unknown) => explainSlackError("chat.stopStream", error));
      this.#rememberTs(this.#streamer.ts);
    }
    if (!this.#posted) throw new Error("the streamed Slack message was never created");
    return this.#posted;
  }

  #withIdentity(posted: PostedMessage): PostedMessage {
    const { identity } = this.#options.message;
    return identity ? { ...posted, identity } : posted;
  }

  #rememberTs(ts: string | undefined): PostedMessage | undefined {
    if (ts && !this.#posted) {
      const target = postTargetOf(this.#options.message.conversation);
      this.#posted = { id: messageId(target.channel, ts), conversation: this.#options.message.conversation };
    }
    return this.#posted;
  }
}
