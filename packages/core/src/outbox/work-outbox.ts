import { setTimeout as sleep } from "node:timers/promises";
import type Keyv from "keyv";
import type { ApprovalPrompt } from "../conversation/approvals.ts";
import type { PostedMessage } from "../conversation/messages.ts";
import type { Deliverer, Delivery } from "../delivery/deliverer.ts";
import type { Logger } from "../runtime/logger.ts";
import { sendFiles } from "./file-sends.ts";
import {
  idempotencyKeyOf,
  type OutboxDelivery,
  type OutboxFile,
  type OutboxRecord,
} from "./outbox-record.ts";
import { type DeliveryRetryPolicy, withDeliveryRetry } from "./retry-delivery.ts";

export interface WorkOutboxDeps {
  readonly records: Keyv<OutboxRecord>;
  readonly recordTtlMs: number;
  readonly deliverer: Deliverer;
  readonly logger: Logger;
  readonly retry: DeliveryRetryPolicy;
  /** Remembers a delivery that was given up, for /status. */
  readonly onGivenUp: (conversationKey: string, reason: string) => Promise<void>;
}

/** What became of one delivery: posted, or given up after its retries (and why). */
export type DeliveryOutcome =
  | { readonly delivered: true }
  | { readonly delivered: false; readonly failed: string };

/**
 * What one unit of queued work says, recorded before it is posted. The n-th `deliver` of an attempt
 * is the n-th delivery of every earlier attempt of the same work (the work up to the model call is
 * deterministic), so a retry posts only what earlier attempts did not, and a recorded answer is
 * delivered instead of being computed again.
 */
export class WorkOutbox {
  readonly workId: string;
  readonly #deps: WorkOutboxDeps;
  readonly #signal: AbortSignal | undefined;
  #record: OutboxRecord;
  #calls = 0;
  /** Deliveries first recorded by this attempt: none of their posts can predate it. */
  readonly #recordedHere = new Set<number>();

  constructor(
    deps: WorkOutboxDeps,
    workId: string,
    recorded: OutboxRecord | undefined,
    signal?: AbortSignal,
  ) {
    this.#deps = deps;
    this.workId = workId;
    this.#signal = signal;
    this.#record = recorded ?? { workId, deliveries: [], answered: false };
  }

  /** An earlier attempt already has this work's answer: deliver what is left, do not run the team. */
  get answered(): boolean {
    return this.#record.answered;
  }

  /**
   * Records the delivery (first attempt) or finds it (retry), then posts whatever is not posted yet.
   * Resolves with whether it is posted, or why it was given up after its retries.
   */
  async deliver(delivery: Delivery, options: { answer?: boolean } = {}): Promise<DeliveryOutcome> {
    const index = this.#calls++;
    if (this.#record.deliveries[index] === undefined) {
      const recorded: OutboxDelivery = {
        conversation: delivery.conversation,
        chunks: this.#deps.deliverer.chunksFor(delivery.conversation, delivery.text),
        ...(delivery.replyTo === undefined ? {} : { replyTo: delivery.replyTo }),
        ...(delivery.recipientId === undefined ? {} : { recipientId: delivery.recipientId }),
        ...(delivery.agent === undefined ? {} : { agent: delivery.agent }),
        ...(delivery.placeholders?.length
          ? { placeholders: delivery.placeholders.map((message) => message.id) }
          : {}),
        ...(delivery.approval ? { approval: delivery.approval } : {}),
        ...(delivery.files?.length ? { files: delivery.files.map((file) => ({ file })) } : {}),
        posted: [],
        attempting: 0,
      };
      this.#recordedHere.add(index);
      await this.#save({
        ...this.#record,
        deliveries: [...this.#record.deliveries, recorded],
        answered: this.#record.answered || options.answer === true,
      });
    }
    await this.#send(index);
    const failed = this.#record.deliveries[index]?.failed;
    return failed === undefined ? { delivered: true } : { delivered: false, failed };
  }

  /** Posts what is left of every recorded delivery (a retry of work whose answer is recorded). */
  async deliverRecorded(): Promise<void> {
    for (let index = 0; index < this.#record.deliveries.length; index++) await this.#send(index);
  }

  async #send(index: number): Promise<void> {
    const { deliverer, logger } = this.#deps;
    let inherited = !this.#recordedHere.has(index);
    for (;;) {
      const delivery = this.#record.deliveries[index];
      if (!delivery || delivery.failed !== undefined) return;
      const chunk = delivery.posted.length;
      const text = delivery.chunks[chunk];
      if (text === undefined) return this.#sendFiles(index);
      const idempotencyKey = idempotencyKeyOf(this.workId, index, chunk);
      const approval = chunk === delivery.chunks.length - 1 ? delivery.approval : undefined;
      // A streamed answer has just used the thread's rate budget: its final chunks keep the pace.
      if (chunk > 0 && delivery.placeholders?.length) await this.#paceLikeTheStream(delivery);
      let postedId: string;
      try {
        // A post started by an earlier attempt may have landed: look before posting again.
        const placeholder = delivery.placeholders?.[chunk];
        const found =
          placeholder !== undefined
            ? await this.#replacePlaceholder(delivery, placeholder, text, approval)
            : inherited && delivery.attempting === chunk
              ? await deliverer.findPosted(delivery.conversation, idempotencyKey)
              : undefined;
        inherited = false;
        postedId =
          found?.id ??
          (
            await withDeliveryRetry(
              () =>
                deliverer.post({
                  conversation: delivery.conversation,
                  text,
                  idempotencyKey,
                  ...(delivery.replyTo === undefined ? {} : { replyTo: delivery.replyTo }),
                  ...(delivery.recipientId === undefined ? {} : { recipientId: delivery.recipientId }),
                  ...(delivery.agent === undefined ? {} : { agent: delivery.agent }),
                  ...(approval ? { approval } : {}),
                }),
              {
                policy: this.#deps.retry,
                ...(this.#signal ? { signal: this.#signal } : {}),
                onRetry: (attempt, delayMs, error) =>
                  logger.warn("posting an answer failed; retrying", {
                    workId: this.workId,
                    chunk,
                    attempt,
                    delayMs,
                    error,
                  }),
              },
            )
          ).id;
      } catch (error) {
        if (this.#signal?.aborted) throw error;
        await this.#giveUp(index, error);
        return;
      }
      const posted = [...delivery.posted, postedId];
      await this.#replace(index, {
        ...withoutAttempt(delivery),
        posted,
        ...(posted.length < delivery.chunks.length ? { attempting: posted.length } : {}),
      });
    }
  }

  async #sendFiles(index: number): Promise<void> {
    if (!this.#record.deliveries[index]?.files?.length) return;
    await sendFiles(
      {
        deliverer: this.#deps.deliverer,
        logger: this.#deps.logger,
        retry: this.#deps.retry,
        signal: this.#signal,
        workId: this.workId,
        delivery: () => this.#record.deliveries[index]!,
        record: (file, state) => this.#replaceFile(index, file, state),
      },
      index,
    );
  }

  async #replaceFile(index: number, file: number, state: OutboxFile): Promise<void> {
    const delivery = this.#record.deliveries[index];
    if (!delivery?.files) return;
    const files = [...delivery.files];
    files[file] = state;
    await this.#replace(index, { ...delivery, files });
  }

  /** A streamed message becomes this chunk of the final text (an edit: repeating it is harmless). */
  async #replacePlaceholder(
    delivery: OutboxDelivery,
    id: string,
    text: string,
    approval: ApprovalPrompt | undefined,
  ): Promise<PostedMessage> {
    const posted = this.#deps.deliverer.postedBy(id, delivery.conversation, delivery.agent);
    await withDeliveryRetry(() => this.#deps.deliverer.replace(posted, text, approval), {
      policy: this.#deps.retry,
      ...(this.#signal ? { signal: this.#signal } : {}),
      onRetry: (attempt, delayMs, error) =>
        this.#deps.logger.warn("replacing a streamed message failed; retrying", {
          workId: this.workId,
          attempt,
          delayMs,
          error,
        }),
    });
    return posted;
  }

  async #paceLikeTheStream(delivery: OutboxDelivery): Promise<void> {
    const intervalMs = this.#deps.deliverer.adapterFor(delivery.conversation).streaming?.editIntervalMs ?? 0;
    if (intervalMs > 0) await sleep(intervalMs, undefined, this.#signal ? { signal: this.#signal } : {});
  }

  async #giveUp(index: number, error: unknown): Promise<void> {
    const delivery = this.#record.deliveries[index];
    if (!delivery) return;
    const reason = error instanceof Error ? error.message : String(error);
    this.#deps.logger.error("an answer could not be delivered; giving up after retries", {
      workId: this.workId,
      conversation: delivery.conversation,
      postedChunks: delivery.posted.length,
      chunks: delivery.chunks.length,
      error,
    });
    await this.#replace(index, { ...withoutAttempt(delivery), failed: reason });
    await this.#deps.onGivenUp(this.#deps.deliverer.keyOf(delivery.conversation), reason);
  }

  async #replace(index: number, delivery: OutboxDelivery): Promise<void> {
    const deliveries = [...this.#record.deliveries];
    deliveries[index] = delivery;
    await this.#save({ ...this.#record, deliveries });
  }

  async #save(record: OutboxRecord): Promise<void> {
    await this.#deps.records.set(this.workId, record, this.#deps.recordTtlMs);
    this.#record = record;
  }
}

function withoutAttempt(delivery: OutboxDelivery): OutboxDelivery {
  const { attempting: _attempting, ...rest } = delivery;
  return rest;
}
