import { z } from "zod";
import type { AdapterStreaming } from "../conversation/adapter.ts";

/** `on` / `off` as written in switchboard.yaml, or a plain boolean. */
const onOff = z
  .union([z.boolean(), z.enum(["on", "off"])])
  .transform((value) => value === true || value === "on");

/**
 * The streaming options every platform section takes, with the platform's own safe edit interval.
 * Spread into an adapter's config schema.
 */
export function streamingConfigFields(defaultEditIntervalMs: number) {
  return {
    streaming: onOff
      .prefault("on")
      .describe("Answers appear as they are written (`off`: posted whole when done)."),
    streamEditIntervalMs: z
      .number()
      .int()
      .min(250)
      .max(30_000)
      .default(defaultEditIntervalMs)
      .describe(
        "Least time between two changes to a streamed answer; keeps within the platform's rate limits.",
      ),
    progress: onOff
      .prefault("on")
      .describe('Show what the team is doing ("billing is checking your invoice…") while it works.'),
  };
}

export interface StreamingSettings {
  readonly streaming: boolean;
  readonly streamEditIntervalMs: number;
  readonly progress: boolean;
}

/** The adapter's streaming capability for validated settings; undefined when streaming is off. */
export function adapterStreaming(
  settings: StreamingSettings,
  openStream?: AdapterStreaming["openStream"],
): AdapterStreaming | undefined {
  if (!settings.streaming) return undefined;
  return {
    editIntervalMs: settings.streamEditIntervalMs,
    progress: settings.progress,
    ...(openStream ? { openStream } : {}),
  };
}
