import type Keyv from "keyv";
import type { Deliverer } from "../delivery/deliverer.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import { GivenUpDeliveries, type GivenUpDelivery } from "./given-up.ts";
import type { OutboxRecord } from "./outbox-record.ts";
import { DEFAULT_DELIVERY_RETRY, type DeliveryRetryPolicy } from "./retry-delivery.ts";
import { WorkOutbox } from "./work-outbox.ts";

/** Longer than any restart: a retried unit of work finds what it already said. */
const RECORD_TTL_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * Answers are computed once and delivered once: each unit of queued work writes what it will say
 * before posting it, and records every chunk it posts (see WorkOutbox).
 */
export class Outbox {
  readonly #records: Keyv<OutboxRecord>;
  readonly #givenUp: GivenUpDeliveries;
  readonly #deliverer: Deliverer;
  readonly #logger: Logger;
  readonly #retry: DeliveryRetryPolicy;

  constructor(options: { store: Store; deliverer: Deliverer; logger: Logger; retry?: DeliveryRetryPolicy }) {
    this.#records = options.store.namespace<OutboxRecord>("outbox");
    this.#givenUp = new GivenUpDeliveries(options.store);
    this.#deliverer = options.deliverer;
    this.#logger = options.logger;
    this.#retry = options.retry ?? DEFAULT_DELIVERY_RETRY;
  }

  /** The outbox of one unit of work, with whatever earlier attempts recorded. */
  async open(workId: string, signal?: AbortSignal): Promise<WorkOutbox> {
    const recorded = (await this.#records.get(workId)) ?? undefined;
    return new WorkOutbox(
      {
        records: this.#records,
        recordTtlMs: RECORD_TTL_MS,
        deliverer: this.#deliverer,
        logger: this.#logger,
        retry: this.#retry,
        onGivenUp: (key, reason) => this.#givenUp.remember(key, reason),
      },
      workId,
      recorded,
      signal,
    );
  }

  /** Answers given up in this conversation recently (newest last), for /status. */
  givenUp(conversationKey: string): Promise<GivenUpDelivery[]> {
    return this.#givenUp.list(conversationKey);
  }
}
