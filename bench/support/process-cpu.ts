/**
 * CPU time of another process, from `/proc/<pid>/stat`: user + system, every thread of it (V8's
 * compiler and GC threads, libuv's pool) included. Linux only, as the bench is.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Clock ticks per second of `/proc/<pid>/stat` times (100 on Linux almost everywhere). */
const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** CPU milliseconds process `pid` has used so far. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at state: utime is the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
