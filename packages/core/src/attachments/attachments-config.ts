import { z } from "zod";

const MB = 1024 * 1024;

/**
 * The `attachments:` section: what the bot reads of the files people send, and how long it keeps
 * them. Validated once at the edge (the CLI); everything below gets the parsed config.
 */
export const attachmentsConfigSchema = z.strictObject({
  /** Off: attachments are ignored (a message with only a file is answered as if it were empty). */
  enabled: z.boolean().default(true).describe("Read the files people send (images, documents, voice notes)."),
  maxBytes: z
    .number()
    .int()
    .min(1024)
    .max(1024 * MB)
    .default(20 * MB)
    .describe(
      "Largest file downloaded, in bytes (default 20 MB). The platform's declared size is not trusted: reading stops at this many bytes and the sender is told the limit.",
    ),
  maxPerMessage: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .describe("Files read per message; the rest are named as skipped."),
  maxTextTokens: z
    .number()
    .int()
    .min(100)
    .max(200_000)
    .default(4_000)
    .describe(
      "Text taken from one file (text, code, CSV, JSON, PDF, docx), in tokens (about 4 characters each); the model is told where it was cut.",
    ),
  retainDays: z
    .number()
    .int()
    .min(1)
    .max(3_650)
    .default(30)
    .describe("Downloaded files and files the team made are deleted this many days after they were stored."),
  blobs: z
    .string()
    .regex(/^(file|rediss?|memory):/i, "expected file:///path, redis://… or memory://")
    .optional()
    .describe(
      "Where file bytes are kept. Default: a folder `attachments/` beside the SQLite store, or the Redis store itself (chunked keys) when the store is Redis. `file:///shared/path` names a folder (a volume every process mounts).",
    ),
  transcription: z
    .strictObject({
      baseUrl: z
        .url({ protocol: /^https?$/ })
        .describe("An OpenAI-compatible API root; `/audio/transcriptions` is appended."),
      model: z.string().min(1).describe("The transcription model, e.g. whisper-1."),
      apiKey: z.string().min(1).optional().describe("Bearer token, when the endpoint wants one."),
      timeoutSeconds: z
        .number()
        .positive()
        .max(600)
        .default(60)
        .describe("How long one transcription may take before it is given up."),
    })
    .optional()
    .describe(
      "Where voice notes and audio files are transcribed. Absent: the sender is told audio cannot be heard.",
    ),
  textOnlyModels: z
    .array(z.string().min(1))
    .default([])
    .describe(
      "Models (as written in `model:` of an agent, or `provider:model`) that take no images: they get a description line instead of the image, and the sender is told once.",
    ),
  pdfTimeoutSeconds: z
    .number()
    .positive()
    .max(300)
    .default(20)
    .describe("How long reading one PDF or docx may take before it is given up."),
  pdfMemoryMb: z
    .number()
    .int()
    .min(32)
    .max(4_096)
    .default(256)
    .describe(
      "Heap the PDF / docx reader may use; a document needing more (a decompression bomb) is refused.",
    ),
});

export type AttachmentsConfig = z.output<typeof attachmentsConfigSchema>;
export type AttachmentsConfigInput = z.input<typeof attachmentsConfigSchema>;

export const DEFAULT_ATTACHMENTS_CONFIG: AttachmentsConfig = attachmentsConfigSchema.parse({});
