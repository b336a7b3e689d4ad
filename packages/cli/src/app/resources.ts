/**
 * What one process opens before anything is built on it, and closes only after everything stopped:
 * the store, the file blobs (with their retention), a cluster role's scale-out queue, the
 * checkpointer and the tool servers. A failure while opening closes what was opened already, so a
 * process that cannot start leaves no connection behind.
 */
import { type Logger, openStore, type Store, systemClock } from "@switchboard/core";
import { BlobRetention, type BlobStore, componentLogger, openBlobStore } from "@switchboard/core/host";
import type { SwitchboardConfig } from "../config/schema.ts";
import type { ScaleOut } from "../scale-out/index.ts";
import { type OpenedCheckpointer, openCheckpointerFor } from "./checkpointer.ts";
import { openScaleOutFor } from "./role.ts";
import { type OpenedTools, openTools } from "./tools.ts";

export interface OpenedResources {
  readonly store: Store;
  /** Where file bytes are kept (absent when `attachments.enabled` is off). */
  readonly blobs: BlobStore | undefined;
  /** Deletes files past `attachments.retainDays`; started with the process (or a cluster's rounds). */
  readonly retention: BlobRetention | undefined;
  /** Where the ingress and worker roles queue their work (BullMQ); absent for role `all`. */
  readonly scaleOut: ScaleOut | undefined;
  readonly checkpointer: OpenedCheckpointer;
  readonly tools: OpenedTools;
  /** Closes the scale-out queue first and the store last (everything else keeps state in it). */
  close(): Promise<void>;
}

export async function openResources(
  config: SwitchboardConfig,
  deps: { cwd: string; logger: Logger },
): Promise<OpenedResources> {
  const { cwd, logger } = deps;
  const store = await openStore(config.store, { cwd, logger: componentLogger(logger, "store") });
  let blobs: BlobStore | undefined;
  let scaleOut: ScaleOut | undefined;
  let checkpointer: OpenedCheckpointer | undefined;
  let tools: OpenedTools | undefined;
  const close = async () => {
    await scaleOut?.close();
    await tools?.close();
    await checkpointer?.close();
    await blobs?.close();
    await store.close();
  };
  try {
    blobs = config.attachments.enabled
      ? await openBlobStore({
          ...(config.attachments.blobs ? { blobsUrl: config.attachments.blobs } : {}),
          storeUrl: config.store,
          cwd,
          retainDays: config.attachments.retainDays,
          onBackgroundError: (error) => logger.error(error.message, { cause: error.cause }),
        })
      : undefined;
    const openedBlobs = blobs;
    const retention = openedBlobs
      ? new BlobRetention({
          blobs: openedBlobs,
          retainDays: config.attachments.retainDays,
          clock: systemClock,
          logger: componentLogger(logger, "attachments"),
        })
      : undefined;
    scaleOut = await openScaleOutFor(config, { cwd, logger: componentLogger(logger, "scale-out") });
    checkpointer = await openCheckpointerFor(config.checkpoints, { cwd, logger, store });
    tools = await openTools(config, {
      store,
      logger,
      ...(openedBlobs ? { files: { blobs: openedBlobs, maxBytes: config.attachments.maxBytes } } : {}),
    });
    return { store, blobs: openedBlobs, retention, scaleOut, checkpointer, tools, close };
  } catch (error) {
    await close();
    throw error;
  }
}
