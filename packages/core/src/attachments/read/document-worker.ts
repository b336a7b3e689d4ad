/**
 * Runs inside a worker thread (see read-document.ts): PDF and docx parsers work on bytes people
 * sent, so they get a heap of their own with a hard limit and are terminated on time-out. A
 * decompression bomb or a parser stuck in a malformed file ends this thread, never the process.
 */
import { parentPort, workerData } from "node:worker_threads";
import { inflatesWithin } from "./inflation-guard.ts";

export interface DocumentJob {
  readonly kind: "pdf" | "docx";
  readonly bytes: Uint8Array;
  readonly maxChars: number;
  /** Bytes the document's compressed parts may inflate to, all together. */
  readonly inflateBudget: number;
}

export type DocumentResult =
  | { readonly ok: true; readonly text: string; readonly truncated: boolean; readonly pages?: number }
  | {
      readonly ok: false;
      readonly problem: "encrypted" | "malformed" | "too-complex";
      readonly detail: string;
    };

async function readPdf(job: DocumentJob): Promise<DocumentResult> {
  const { getDocumentProxy } = await import("unpdf");
  let document: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    document = await getDocumentProxy(job.bytes, { stopAtErrors: false, disableFontFace: true });
  } catch (error) {
    const name = error instanceof Error ? error.name : "";
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: name === "PasswordException" ? "encrypted" : "malformed", detail };
  }
  const parts: string[] = [];
  let length = 0;
  let truncated = false;
  for (let number = 1; number <= document.numPages; number++) {
    if (length >= job.maxChars) {
      truncated = true;
      break;
    }
    const page = await document.getPage(number);
    const content = await page.getTextContent();
    const text = content.items
      .map((item) => ("str" in item ? `${item.str}${item.hasEOL ? "\n" : ""}` : ""))
      .join("")
      .trim();
    page.cleanup();
    if (text === "") continue;
    parts.push(text);
    length += text.length + 2;
  }
  const text = parts.join("\n\n");
  await document.cleanup();
  return {
    ok: true,
    text: text.slice(0, job.maxChars),
    truncated: truncated || text.length > job.maxChars,
    pages: document.numPages,
  };
}

async function readDocx(job: DocumentJob): Promise<DocumentResult> {
  const mammoth = await import("mammoth");
  try {
    const result = await mammoth.default.extractRawText({ buffer: Buffer.from(job.bytes) });
    const text = result.value.replace(/\n{3,}/g, "\n\n").trim();
    return { ok: true, text: text.slice(0, job.maxChars), truncated: text.length > job.maxChars };
  } catch (error) {
    return {
      ok: false,
      problem: "malformed",
      detail: error instanceof Error ? error.message : String(error),
    };
  }
}

if (parentPort) {
  const job = workerData as DocumentJob;
  const port = parentPort;
  const read: Promise<DocumentResult> = !inflatesWithin(job.kind, job.bytes, job.inflateBudget)
    ? Promise.resolve({
        ok: false,
        problem: "too-complex",
        detail: `its compressed parts expand past ${Math.round(job.inflateBudget / 1024 / 1024)} MB (a decompression bomb?)`,
      })
    : job.kind === "pdf"
      ? readPdf(job)
      : readDocx(job);
  read.then(
    (result) => port.postMessage(result),
    (error: unknown) =>
      port.postMessage({
        ok: false,
        problem: "malformed",
        detail: error instanceof Error ? error.message : String(error),
      } satisfies DocumentResult),
  );
}
