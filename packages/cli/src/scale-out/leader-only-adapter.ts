import type { InboundMessage } from "@switchboard/core";
import type { Adapter, InboundSink } from "@switchboard/core/adapter";
import { delegateTo } from "@switchboard/core/host";
import type { Leadership } from "./leadership.ts";

/** An event reached an ingress that no longer leads; the platform side keeps it for the new leader. */
export class NotLeadingError extends Error {
  constructor(platform: string) {
    super(`this ingress no longer leads ${platform} receiving; the event is left for the leader`);
    this.name = "NotLeadingError";
  }
}

/**
 * An ingress's view of an adapter whose inbound connection the platform allows once per bot (the
 * Matrix sync, the Discord gateway): it receives only while this process leads, and otherwise
 * delivers through the platform's HTTP API alone (its send-only form, when it has one). Events are
 * handed on only while the lease is surely held: a deposed leader's events fail back to the
 * platform side (the Matrix sync position does not advance), so the new leader receives them.
 */
export function leaderOnly(inner: Adapter, leadership: Leadership): Adapter {
  let receiving = false;
  let sendingOnly = false;
  const stopSendingOnly = async () => {
    if (!sendingOnly) return;
    sendingOnly = false;
    await inner.stop();
  };
  const start = async (sink: InboundSink) => {
    const fenced: InboundSink = async (message: InboundMessage) => {
      if (!leadership.holds()) throw new NotLeadingError(inner.platform);
      await sink(message);
    };
    await leadership.start({
      elected: async () => {
        await stopSendingOnly();
        await inner.start(fenced);
        receiving = true;
      },
      deposed: async () => {
        if (!receiving) return;
        receiving = false;
        await inner.stop();
      },
      standby: async () => {
        if (sendingOnly || !inner.startSendOnly) return;
        await inner.startSendOnly();
        sendingOnly = true;
      },
    });
  };
  const stop = async () => {
    await leadership.stop();
    await stopSendingOnly();
  };
  return { ...delegateTo(inner), exclusiveInbound: true, start, stop };
}
