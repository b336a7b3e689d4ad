import type { Adapter } from "@switchboard/core/adapter";
import { delegateTo } from "@switchboard/core/host";

/** The platform has no send-only mode (every built-in one has); the worker role refuses it. */
export class SendOnlyUnsupportedError extends Error {
  constructor(platform: string) {
    super(
      `${platform} cannot run in a worker yet (it has no send-only mode); run Switchboard with role all while ${platform} is enabled`,
    );
    this.name = "SendOnlyUnsupportedError";
  }
}

/**
 * A worker's view of a platform adapter: everything that delivers, nothing that receives. The
 * engine starts it like any adapter; that starts the platform's send-only mode — Slack's Web API,
 * Matrix's client-server API without `/sync`, Discord's REST API without the gateway. Optional
 * abilities (edit, findPosted, typing, showing a decision typed in chat…) are offered exactly when
 * the platform adapter has them, so delivery behaves as it does in one process. What a platform
 * cannot deliver from a worker, its `checkSendOnly` says (`switchboard doctor --role worker`).
 */
export function sendOnly(inner: Adapter): Adapter {
  const startSendOnly = inner.startSendOnly?.bind(inner);
  if (!startSendOnly) throw new SendOnlyUnsupportedError(inner.platform);
  return { ...delegateTo(inner), start: () => startSendOnly() };
}
