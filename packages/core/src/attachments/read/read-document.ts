import { Worker } from "node:worker_threads";
import type { DocumentJob, DocumentResult } from "./document-worker.ts";

export type DocumentReading =
  | DocumentResult
  | { readonly ok: false; readonly problem: "timed-out"; readonly detail: string };

export interface DocumentLimits {
  readonly timeoutMs: number;
  /** Old-generation heap of the reader's thread. */
  readonly memoryMb: number;
}

/** The worker's file: `.ts` when run from source (Node strips the types), `.js` once built. */
const WORKER_URL = new URL(
  import.meta.url.endsWith(".ts") ? "./document-worker.ts" : "./document-worker.js",
  import.meta.url,
);

/**
 * Text of a PDF or docx, read in a worker thread with its own heap limit and a time limit: an
 * encrypted, malformed or decompression-bomb document is refused (the thread is ended), and the
 * process's own memory and event loop are untouched.
 */
export function readDocument(
  request: Omit<DocumentJob, "inflateBudget">,
  limits: DocumentLimits,
): Promise<DocumentReading> {
  // Half the reader's heap: what a document inflates to must leave room for the parser's own work.
  const job: DocumentJob = { ...request, inflateBudget: (limits.memoryMb / 2) * 1024 * 1024 };
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_URL, {
      workerData: job,
      resourceLimits: {
        maxOldGenerationSizeMb: limits.memoryMb,
        maxYoungGenerationSizeMb: Math.min(64, Math.max(8, Math.floor(limits.memoryMb / 8))),
        stackSizeMb: 4,
      },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const finish = (reading: DocumentReading) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(reading);
    };
    const timer = setTimeout(
      () => finish({ ok: false, problem: "timed-out", detail: `gave up after ${limits.timeoutMs} ms` }),
      limits.timeoutMs,
    );
    worker.on("message", (result: DocumentResult) => finish(result));
    worker.on("error", (error: Error & { code?: string }) =>
      finish(
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? { ok: false, problem: "too-complex", detail: `needed more than ${limits.memoryMb} MB to read` }
          : { ok: false, problem: "malformed", detail: error.message },
      ),
    );
    worker.on("exit", (code) =>
      finish({ ok: false, problem: "too-complex", detail: `the reader stopped (exit code ${code})` }),
    );
  });
}
