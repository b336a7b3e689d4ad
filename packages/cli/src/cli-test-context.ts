import { PassThrough, Writable } from "node:stream";
import type { CliContext } from "./cli-context.ts";
import type { Environment } from "./config/env-overrides.ts";

/** Collects what a command writes, as text. */
export class TextSink extends Writable {
  text = "";
  override _write(
    chunk: Buffer | string,
    _encoding: BufferEncoding,
    done: (error?: Error | null) => void,
  ): void {
    this.text += chunk.toString();
    done();
  }
}

/** A CliContext over in-memory streams; `stdin` ends after `input` unless `keepStdinOpen`. */
export function testContext(options: {
  cwd: string;
  input?: string;
  env?: Environment;
  keepStdinOpen?: boolean;
}) {
  const stdin = new PassThrough();
  if (options.input !== undefined) stdin.write(options.input);
  if (!options.keepStdinOpen) stdin.end();
  const stdout = new TextSink();
  const stderr = new TextSink();
  const shutdown = new AbortController();
  const context: CliContext = {
    env: options.env ?? {},
    cwd: options.cwd,
    stdin,
    stdout,
    stderr,
    shutdownSignal: shutdown.signal,
  };
  return { context, stdin, stdout, stderr, shutdown };
}
