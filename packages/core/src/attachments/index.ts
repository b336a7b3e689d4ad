export { AttachmentReader, type AttachmentReaderOptions, type ReadContext } from "./attachment-reader.ts";
export {
  type AttachmentsConfig,
  type AttachmentsConfigInput,
  attachmentsConfigSchema,
  DEFAULT_ATTACHMENTS_CONFIG,
} from "./attachments-config.ts";
export { BlobRetention, type BlobRetentionOptions } from "./blobs/blob-retention.ts";
export {
  type BlobRef,
  type BlobStore,
  blobId,
  parseBlobId,
  readBlob,
  spaceOf,
} from "./blobs/blob-store.ts";
export { type OpenBlobStoreOptions, openBlobStore } from "./blobs/open-blob-store.ts";
export { type WrittenBlob, writeBlob, writeBytes } from "./blobs/write-blob.ts";
export { CREATE_FILE, createFileTool } from "./create-file-tool.ts";
export type { LoadImage } from "./model-content.ts";
export { ExpiredFileLinkError, fetchPlatformFile, type PlatformFileRequest } from "./platform-fetch.ts";
export { formatBytes, safeFileName } from "./safe-name.ts";
export type { OutboundFile, PreparedAttachments, StoredAttachment } from "./stored-attachment.ts";
export { keepToolFile, type ToolFileSource, type ToolFiles, toolResultWithFiles } from "./tool-files.ts";
