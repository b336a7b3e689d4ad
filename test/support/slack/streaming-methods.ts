import { RateWindow } from "../rate-window.ts";
import {
  authorshipOf,
  BOT_ID,
  BOT_USER_ID,
  type StoredMessage,
  type WorkspaceState,
} from "./workspace-state.ts";

type Args = Record<string, unknown>;
type Reply = Record<string, unknown> & { ok: boolean };

const fail = (error: string): Reply => ({ ok: false, error });
const text = (value: unknown) => (typeof value === "string" ? value : undefined);

/** Methods that post or change a message in a channel: Slack allows about one per second per channel. */
export const MESSAGE_METHODS = new Set([
  "chat.postMessage",
  "chat.update",
  "chat.startStream",
  "chat.appendStream",
  "chat.stopStream",
]);

export interface StreamingMethodsOptions {
  readonly state: WorkspaceState;
  /** Whether the app may use chat.startStream (Slack offers it to AI apps); refused with `not_allowed` otherwise. */
  readonly streamingAllowed: () => boolean;
  /** The app's scopes (chat:write.customize decides whether a stream keeps `username` and icons). */
  readonly scopes: () => readonly string[];
  readonly onBotMessage?: (message: StoredMessage) => void;
}

/** The markdown of `markdown_text` or of the `markdown_text` chunks (JSON when form-encoded). */
function markdownOf(args: Args): string {
  const direct = text(args.markdown_text) ?? "";
  const raw = typeof args.chunks === "string" ? (JSON.parse(args.chunks) as unknown) : args.chunks;
  const chunks = Array.isArray(raw) ? raw : [];
  return (
    direct +
    chunks
      .map((chunk: unknown) =>
        typeof chunk === "object" && chunk !== null && "type" in chunk && chunk.type === "markdown_text"
          ? String((chunk as { text?: unknown }).text ?? "")
          : "",
      )
      .join("")
  );
}

/**
 * Slack's streaming methods as the stand-in serves them: a stream is started in a thread (with a
 * recipient outside DMs), appended to, stopped; only a stopped message can be updated. Message
 * calls are counted per channel against Slack's rate, whatever method they use.
 */
export function streamingMethods(options: StreamingMethodsOptions) {
  const { state } = options;
  const streams = new Map<string, "open" | "stopped">();
  const messageRate = new RateWindow(5, 5_000);
  const streamOf = (args: Args) => {
    const channel = text(args.channel) ?? "";
    const ts = text(args.ts) ?? "";
    return { key: `${channel}:${ts}`, message: state.find(channel, ts) };
  };
  const methods: Record<string, (args: Args) => Reply> = {
    "chat.startStream": (args) => {
      if (!options.streamingAllowed()) return fail("not_allowed");
      const channel = text(args.channel) ?? "";
      const info = state.channels.get(channel);
      if (!info) return fail("channel_not_found");
      if (!info.botIsMember) return fail("not_in_channel");
      const threadTs = text(args.thread_ts);
      if (!threadTs || !state.find(channel, threadTs)) return fail("invalid_thread_ts");
      if (info.type !== "im" && (!text(args.recipient_user_id) || !text(args.recipient_team_id)))
        return fail("invalid_arguments");
      const stored = state.add({
        ...authorshipOf(args, options.scopes()),
        channel,
        text: markdownOf(args),
        user: BOT_USER_ID,
        bot_id: BOT_ID,
        thread_ts: threadTs,
      });
      streams.set(`${channel}:${stored.ts}`, "open");
      options.onBotMessage?.(stored);
      return { ok: true, channel, ts: stored.ts };
    },
    "chat.appendStream": (args) => {
      const { key, message } = streamOf(args);
      if (!message) return fail("message_not_found");
      if (streams.get(key) !== "open") return fail("message_not_in_streaming_state");
      message.text += markdownOf(args);
      return { ok: true, channel: message.channel, ts: message.ts };
    },
    "chat.stopStream": (args) => {
      const { key, message } = streamOf(args);
      if (!message) return fail("message_not_found");
      if (streams.get(key) !== "open") return fail("message_not_in_streaming_state");
      message.text += markdownOf(args);
      streams.set(key, "stopped");
      return { ok: true, channel: message.channel, ts: message.ts, message: { text: message.text } };
    },
  };
  return {
    methods,
    messageRate,
    /** Refuses changes to a message that is still streaming, as Slack does. */
    updatable: (args: Args) => streams.get(streamOf(args).key) !== "open",
    /** Streams never stopped: a message left looking unfinished. */
    openStreams: () => [...streams].filter(([, status]) => status === "open").map(([key]) => key),
  };
}
