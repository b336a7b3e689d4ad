export { type LiveSession, LiveSessions } from "./active-sessions.ts";
export {
  type ArchivedSession,
  type ArchivedSessionSummary,
  type ArchiveHit,
  type ArchiveQuery,
  type ArchiveReason,
  type ArchiveStore,
  type TranscriptLine,
  workspaceOf,
} from "./archive/archive-store.ts";
export { KeyvArchiveStore } from "./archive/keyv-archive-store.ts";
export { openArchiveStore } from "./archive/open-archive-store.ts";
export { SqliteArchiveStore } from "./archive/sqlite-archive-store.ts";
export { type CompactionPlan, HistoryCompactor, planCompaction } from "./compaction.ts";
export { ControlState, controlForMessage, controlForTurn } from "./control-state.ts";
export type { ConversationHistory } from "./conversation-history.ts";
export { type CreateMemoryOptions, createMemory, type Memory } from "./create-memory.ts";
export { IdleSweeper } from "./idle-sweeper.ts";
export { MemoryAgent, type MemoryRun, type MemorySessionState, memoryThreadOf } from "./memory-agent.ts";
export { type ContextDocument, MemoryBook, type MemoryEntry, type SpeakerRole } from "./memory-book.ts";
export {
  DEFAULT_MEMORY_CONFIG,
  type MemoryConfig,
  type MemoryConfigInput,
  memoryConfigSchema,
} from "./memory-config.ts";
export { MemoryInvoker, MemoryNotAttachedError } from "./memory-invoker.ts";
export type { MemoryWork, MemoryWorkRecorder } from "./memory-work.ts";
export { createSearchMemoryTool, SEARCH_MEMORY } from "./search-tool.ts";
export { type SessionRecord, SessionStore } from "./session-store.ts";
export { extractiveSummary } from "./summarize.ts";
