/**
 * Holds chosen `chat.postMessage` calls at the Slack stand-in. By default Slack's *response* is
 * held: Slack has stored the message, the app has not heard back — a kill while a post is held is a
 * kill "after posting": the post exists, and the dying process never learned that it does. With
 * `before`, the *request* is held before Slack acts on it: Slack is slow to take the post.
 */
import { Gauge } from "../model/model-stub.ts";
import type { WebApiStandIn } from "../slack/web-api-stand-in.ts";

export interface HeldPosts {
  /** Posts held so far. */
  readonly held: Gauge;
  /** Lets every held post (and every later one) through. */
  release(): void;
}

export function holdPosts(
  api: WebApiStandIn,
  shouldHold: (text: string) => boolean,
  options: { before?: boolean } = {},
): HeldPosts {
  const held = new Gauge();
  let released = false;
  const waiting: (() => void)[] = [];
  const hold = (method: string, args: Record<string, unknown>) => {
    if (released || method !== "chat.postMessage") return undefined;
    if (!shouldHold(typeof args.text === "string" ? args.text : "")) return undefined;
    held.add(1);
    return new Promise<void>((resolve) => waiting.push(resolve));
  };
  if (options.before) api.requestGate = hold;
  else api.responseGate = (call) => (call.reply.ok ? hold(call.method, call.args) : undefined);
  return {
    held,
    release() {
      released = true;
      if (options.before) api.requestGate = undefined;
      else api.responseGate = undefined;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}
