/**
 * Loaded into a process with `--import` by burst-phases.ts: writes down when HTTP work happens in
 * it, from Node's own diagnostics channels — requests arriving and answered (`in`, `ack`),
 * connections accepted (`accept`), and each outgoing undici request created, its response headers
 * and its end (`out`, `head`, `end`: the model calls and the Slack Web API calls). On exit it writes
 * the marks, as JSON, to `PHASE_MARKS_FILE` with the process id appended, so a process that
 * replaces itself (the CLI does, with its server flags) leaves the file of the one that served.
 *
 * Times are epoch milliseconds with sub-millisecond precision (`performance.timeOrigin` plus
 * `performance.now()`), so the marks of two processes line up.
 */
import { subscribe } from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";

export type PhaseKind = "in" | "ack" | "accept" | "out" | "head" | "end";
/** [epoch ms, kind, request path ("" for a connection)] */
export type PhaseMark = readonly [number, PhaseKind, string];

const file = process.env.PHASE_MARKS_FILE;
if (!file) throw new Error("phase-marks: PHASE_MARKS_FILE names no file");

const marks: PhaseMark[] = [];
const now = () => performance.timeOrigin + performance.now();

/** The `request` a channel's message carries, with the one field read from it. */
function requestField(message: unknown, field: "url" | "path"): string {
  if (typeof message !== "object" || message === null || !("request" in message)) return "";
  const request: unknown = message.request;
  if (typeof request !== "object" || request === null || !(field in request)) return "";
  const value: unknown = (request as Record<string, unknown>)[field];
  return typeof value === "string" ? value : "";
}

subscribe("http.server.request.start", (message) => marks.push([now(), "in", requestField(message, "url")]));
subscribe("http.server.response.finish", (message) =>
  marks.push([now(), "ack", requestField(message, "url")]),
);
subscribe("net.server.socket", () => marks.push([now(), "accept", ""]));
subscribe("undici:request:create", (message) => marks.push([now(), "out", requestField(message, "path")]));
subscribe("undici:request:headers", (message) => marks.push([now(), "head", requestField(message, "path")]));
subscribe("undici:request:trailers", (message) => marks.push([now(), "end", requestField(message, "path")]));

process.on("exit", () => writeFileSync(`${file}.${process.pid}`, JSON.stringify(marks)));
