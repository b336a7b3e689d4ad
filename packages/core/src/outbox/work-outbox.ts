import { setTimeout as sleep } from "node:timers/promises";
import type Keyv from "keyv";
import { awayFromCpu } from "../capacity/cpu-slots.ts";
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
import { type DeliveryRetryPolicy, postOnce, withDeliveryRetry } from "./retry-delivery.ts";

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
 * What one unit of queued work says, recorded before it is posted. The n-th unkeyed `deliver` of an
 * attempt is the n-th unkeyed delivery of every earlier attempt of the same work (the work up to the
 * model call is deterministic), so a retry posts only what earlier attempts did not, and a recorded
 * answer is delivered instead of being computed again. A keyed delivery (an interim message) is
 * found by its key instead: a re-run may skip it (its tool call replayed from the run journal) or
 * ask for it again, and either way it is posted once and the positions of the others do not move.
 */
export class WorkOutbox {
  readonly workId: string;
  readonly #deps: WorkOutboxDeps;
  readonly #signal: AbortSignal | undefined;
  #record: OutboxRecord;
  #unkeyedCalls = 0;
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

  /** Keyed deliveries recorded for this work so far, by any attempt (interim messages of the turn). */
  get keyedCount(): number {
    return this.#record.deliveries.filter((delivery) => delivery.key !== undefined).length;
  }

  /** Whether a delivery with this key is recorded (by this attempt or an earlier one). */
  hasKey(key: string): boolean {
    return this.#record.deliveries.some((delivery) => delivery.key === key);
  }

  /** What each recorded delivery says (its text, chunk by chunk) and the messages it posted so far. */
  recordedDeliveries(): { readonly chunks: readonly string[]; readonly posted: readonly PostedMessage[] }[] {
    return this.#record.deliveries.map((delivery) => ({
      chunks: delivery.chunks,
      posted: delivery.posted.map((id) => ({ id, conversation: delivery.conversation })),
    }));
  }

  /**
   * The messages the recorded delivery at `index` posted — with the one whose post was under way
   * when its work was cancelled (the post is abandoned, not called back, and may have landed):
   * that one is looked up on the platform by its idempotency key, as a retry would before posting.
   */
  async landed(index: number): Promise<PostedMessage[]> {
    const delivery = this.#record.deliveries[index];
    if (!delivery) return [];
    const posted = delivery.posted.map((id) => ({ id, conversation: delivery.conversation }));
    const next = delivery.posted.length;
    if (next >= delivery.chunks.length || delivery.failed !== undefined) return posted;
    const found = await this.#deps.deliverer.findPosted(
      delivery.conversation,
      idempotencyKeyOf(this.workId, index, next),
    );
    return found ? [...posted, found] : posted;
  }

  /**
   * Records the delivery (first attempt) or finds it (retry), then posts whatever is not posted yet.
   * With a `key`, a recorded delivery of that key is the one (its text is not recorded again).
   * Resolves with whether it is posted, or why it was given up after its retries.
   */
  async deliver(
    delivery: Delivery,
    options: { answer?: boolean; key?: string } = {},
  ): Promise<DeliveryOutcome> {
    const position = await this.record(delivery, options);
    await this.#send(position);
    const failed = this.#record.deliveries[position]?.failed;
    return failed === undefined ? { delivered: true } : { delivered: false, failed };
  }

  /**
   * Records the next delivery without posting it (a retry finds it recorded and records nothing);
   * `deliverRecorded` posts it. Returns its index.
   */
  async record(delivery: Delivery, options: { answer?: boolean; key?: string } = {}): Promise<number> {
    const index =
      options.key === undefined
        ? this.#unkeyedIndex(this.#unkeyedCalls++)
        : this.#record.deliveries.findIndex((recorded) => recorded.key === options.key);
    if (index !== -1) return index;
    await this.#append(delivery, options);
    return this.#record.deliveries.length - 1;
  }

  /** Where the n-th unkeyed delivery is recorded; -1 when no attempt recorded it yet. */
  #unkeyedIndex(ordinal: number): number {
    let seen = 0;
    for (const [index, delivery] of this.#record.deliveries.entries()) {
      if (delivery.key !== undefined) continue;
      if (seen === ordinal) return index;
      seen++;
    }
    return -1;
  }

  async #append(delivery: Delivery, options: { answer?: boolean; key?: string }): Promise<void> {
    const recorded: OutboxDelivery = {
      ...(options.key === undefined ? {} : { key: options.key }),
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
    this.#recordedHere.add(this.#record.deliveries.length);
    await this.#save({
      ...this.#record,
      deliveries: [...this.#record.deliveries, recorded],
      answered: this.#record.answered || options.answer === true,
    });
  }

  /** Posts what is left of every recorded delivery (a retry of work whose answer is recorded). */
  async deliverRecorded(): Promise<void> {
    for (let index = 0; index < this.#record.deliveries.length; index++) await this.#send(index);
  }

  /**
   * Gives up every recorded delivery with chunks not posted yet, for `reason`: each is logged and
   * listed by `/status` in its thread, as one given up after its retries is.
   */
  async giveUpUndelivered(reason: string): Promise<void> {
    for (const [index, delivery] of this.#record.deliveries.entries()) {
      if (delivery.failed === undefined && delivery.posted.length < delivery.chunks.length)
        await this.#giveUp(index, new Error(reason));
    }
  }

  async #send(index: number): Promise<void> {
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
        const placeholder = delivery.placeholders?.[chunk];
        postedId = (
          placeholder !== undefined
            ? await this.#replacePlaceholder(delivery, placeholder, text, approval)
            : await this.#postChunk(delivery, {
                text,
                chunk,
                idempotencyKey,
                approval,
                // A post started by an earlier attempt may have landed: looked for before posting again.
                mayHaveLanded: inherited && delivery.attempting === chunk,
              })
        ).id;
        inherited = false;
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

  /** Posts one chunk, once (see `postOnce`). */
  #postChunk(
    delivery: OutboxDelivery,
    chunk: {
      text: string;
      chunk: number;
      idempotencyKey: string;
      approval: ApprovalPrompt | undefined;
      mayHaveLanded: boolean;
    },
  ): Promise<PostedMessage> {
    const { deliverer, logger } = this.#deps;
    const { text, idempotencyKey, approval } = chunk;
    return postOnce(
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
      () => deliverer.findPosted(delivery.conversation, idempotencyKey),
      {
        policy: this.#deps.retry,
        ...(this.#signal ? { signal: this.#signal } : {}),
        mayHaveLanded: chunk.mayHaveLanded,
        onRetry: (attempt, delayMs, error) =>
          logger.warn("posting an answer failed; retrying", {
            workId: this.workId,
            chunk: chunk.chunk,
            attempt,
            delayMs,
            error,
          }),
      },
    );
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
    if (intervalMs > 0)
      await awayFromCpu(() => sleep(intervalMs, undefined, this.#signal ? { signal: this.#signal } : {}));
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
