export {
  ACCEPTED_CHECKPOINTER_URLS,
  CheckpointConfigError,
  CheckpointDataError,
  CheckpointerConnectionError,
  CheckpointerUrlError,
  CheckpointOptionError,
  CheckpointSchemaError,
} from "./errors.ts";
export {
  type OpenCheckpointerOptions,
  type OpenedCheckpointer,
  openCheckpointer,
} from "./open-checkpointer.ts";
export { DEFAULT_REDIS_CHECKPOINT_PREFIX } from "./redis-layout.ts";
export type { RetainingSaverOptions } from "./retaining-saver.ts";
export { DEFAULT_KEEP_CHECKPOINTS, MIN_KEEP_CHECKPOINTS } from "./retention.ts";
export { SqliteSaver, type SqliteSaverOptions } from "./sqlite-saver.ts";
