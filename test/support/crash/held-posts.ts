/**
 * Holds Slack's response to chosen `chat.postMessage` calls: Slack has stored the message, the app
 * has not heard back. A kill while a post is held is a kill "after posting": the post exists, and the
 * dying process never learned that it does.
 */
import { Gauge } from "../model/model-stub.ts";
import type { WebApiStandIn } from "../slack/web-api-stand-in.ts";

export interface HeldPosts {
  /** Posts held so far. */
  readonly held: Gauge;
  /** Lets every held response (and every later one) through. */
  release(): void;
}

export function holdPosts(api: WebApiStandIn, shouldHold: (text: string) => boolean): HeldPosts {
  const held = new Gauge();
  let released = false;
  const waiting: (() => void)[] = [];
  api.responseGate = (call) => {
    if (released || call.method !== "chat.postMessage" || !call.reply.ok) return undefined;
    if (!shouldHold(typeof call.args.text === "string" ? call.args.text : "")) return undefined;
    held.add(1);
    return new Promise<void>((resolve) => waiting.push(resolve));
  };
  return {
    held,
    release() {
      released = true;
      api.responseGate = undefined;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}
