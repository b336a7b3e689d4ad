export { GivenUpDeliveries, type GivenUpDelivery } from "./given-up.ts";
export { Outbox } from "./outbox.ts";
export { idempotencyKeyOf, type OutboxDelivery, type OutboxRecord } from "./outbox-record.ts";
export { DEFAULT_DELIVERY_RETRY, type DeliveryRetryPolicy } from "./retry-delivery.ts";
export { WorkOutbox } from "./work-outbox.ts";
