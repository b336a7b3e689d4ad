import { formatBytes } from "../attachments/safe-name.ts";
import type { FileMessage } from "../conversation/files.ts";
import type { Deliverer } from "../delivery/deliverer.ts";
import type { Logger } from "../runtime/logger.ts";
import { idempotencyKeyOf, type OutboxDelivery, type OutboxFile } from "./outbox-record.ts";
import {
  type DeliveryRetryOptions,
  type DeliveryRetryPolicy,
  postOnce,
  withDeliveryRetry,
} from "./retry-delivery.ts";

export interface FileSendsDeps {
  readonly deliverer: Deliverer;
  readonly logger: Logger;
  readonly retry: DeliveryRetryPolicy;
  readonly signal: AbortSignal | undefined;
  readonly workId: string;
  /** The delivery as recorded now. */
  readonly delivery: () => OutboxDelivery;
  /** Records a file's new state durably before anything else happens. */
  readonly record: (file: number, state: OutboxFile) => Promise<void>;
}

/**
 * Sends the files of one recorded delivery, after its text: for each, the upload (recorded as soon
 * as the platform has the bytes), then the message that shows it. A retry of the work finds each
 * file's state in the record: a posted file is done, an upload whose post may have landed is looked
 * for first, and posted from the same upload when it is not there — a crash anywhere never sends a
 * second copy. A file that cannot be sent (the platform takes none, it is too large, it is gone) is
 * named in the thread instead, once.
 */
export async function sendFiles(deps: FileSendsDeps, deliveryIndex: number): Promise<void> {
  const { deliverer, logger, signal, workId } = deps;
  const count = deps.delivery().files?.length ?? 0;
  for (let index = 0; index < count; index++) {
    const delivery = deps.delivery();
    const entry = delivery.files?.[index];
    if (!entry || entry.posted !== undefined || entry.failed !== undefined) continue;
    // Keys past the text's chunk numbers: a file's post never shares a key with a chunk.
    const idempotencyKey = idempotencyKeyOf(workId, deliveryIndex, delivery.chunks.length + index);
    const retrying = (what: string): DeliveryRetryOptions => ({
      policy: deps.retry,
      ...(signal ? { signal } : {}),
      onRetry: (attempt, delayMs, error) =>
        logger.warn(`${what} failed; retrying`, { workId, file: entry.file.name, attempt, delayMs, error }),
    });
    try {
      if (!deliverer.canSendFiles(delivery.conversation)) {
        await announceInstead(deps, delivery, entry, idempotencyKey, "files cannot be sent here");
        await deps.record(index, { ...entry, failed: "the platform takes no files here" });
        continue;
      }
      let upload = entry.upload;
      if (upload === undefined) {
        const uploaded = await withDeliveryRetry(
          () => deliverer.uploadFile(delivery.conversation, entry.file),
          retrying("uploading a file"),
        );
        upload = uploaded;
        await deps.record(index, { ...entry, upload: uploaded, attempting: true });
      }
      const message: FileMessage = {
        conversation: delivery.conversation,
        file: deliverer.fileToSend(entry.file),
        upload,
        idempotencyKey,
        ...(delivery.replyTo === undefined ? {} : { replyTo: delivery.replyTo }),
        ...(delivery.agent === undefined ? {} : { agent: delivery.agent }),
      };
      const posted = await postOnce(
        () => deliverer.postFile(message),
        () => deliverer.findPostedFile(message),
        // The upload was recorded by an earlier attempt: its post may have landed.
        { ...retrying("posting a file"), mayHaveLanded: entry.attempting === true },
      );
      await deps.record(index, { file: entry.file, upload, posted: posted.id });
    } catch (error) {
      if (signal?.aborted) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      logger.error("a file could not be sent; giving up after retries", {
        workId,
        file: entry.file.name,
        error,
      });
      await deps.record(index, { ...entry, failed: reason });
      await announceInstead(deps, delivery, entry, idempotencyKey, "it could not be uploaded").catch(
        (announceError: unknown) =>
          logger.error("could not say that a file was not sent", { workId, error: announceError }),
      );
    }
  }
}

/** A line in the thread naming a file that could not be attached, so nobody waits for it. */
async function announceInstead(
  deps: FileSendsDeps,
  delivery: OutboxDelivery,
  entry: OutboxFile,
  idempotencyKey: string,
  why: string,
): Promise<void> {
  const { file } = entry;
  const text = `_${file.name} (${file.mediaType}, ${formatBytes(file.size)}) could not be attached: ${why}._`;
  // Looked for before each attempt (a re-run says it again): a post that landed unheard is not made twice.
  await postOnce(
    () =>
      deps.deliverer.post({
        conversation: delivery.conversation,
        text,
        idempotencyKey,
        ...(delivery.replyTo === undefined ? {} : { replyTo: delivery.replyTo }),
        ...(delivery.agent === undefined ? {} : { agent: delivery.agent }),
      }),
    () => deps.deliverer.findPosted(delivery.conversation, idempotencyKey),
    {
      policy: deps.retry,
      ...(deps.signal ? { signal: deps.signal } : {}),
      mayHaveLanded: true,
      onRetry: (attempt, delayMs, error) =>
        deps.logger.warn("saying that a file was not sent failed; retrying", {
          workId: deps.workId,
          file: file.name,
          attempt,
          delayMs,
          error,
        }),
    },
  );
}
