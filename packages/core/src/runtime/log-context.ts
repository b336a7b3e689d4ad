import { AsyncLocalStorage } from "node:async_hooks";
import type { LogFields } from "./logger.ts";

const storage = new AsyncLocalStorage<LogFields>();

/**
 * Runs `work` with `fields` (conversation key, request id, run id) on every log line written inside
 * it, however deep: the turn's callers need not pass them along. Nested calls add to the outer fields.
 */
export function withLogContext<T>(fields: LogFields, work: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, work);
}

/** The fields of the innermost `withLogContext` around the caller; empty outside any. */
export function currentLogContext(): LogFields {
  return storage.getStore() ?? {};
}
