import type { Logger } from "@switchboard/core/adapter";
import type { MatrixSdk } from "./load-sdk.ts";

let httpModuleMuted = false;

function render(parts: unknown[]): string {
  return parts
    .map((part) =>
      part instanceof Error ? part.message : typeof part === "string" ? part : JSON.stringify(part),
    )
    .join(" ");
}

/**
 * Sends the SDK's log lines to our logger. The SDK's LogService is process-wide, so the last adapter
 * started owns it. Its HTTP module is muted: it logs every non-2xx answer (including expected 404s
 * and the rate limits we retry), and we log the failures that matter ourselves, with context.
 */
export function routeSdkLogs(sdk: MatrixSdk, logger: Logger): void {
  const from = (module: string) => ({ source: "matrix-bot-sdk", module });
  sdk.LogService.setLogger({
    trace: () => {},
    debug: (module: string, ...parts: unknown[]) => logger.debug(render(parts), from(module)),
    info: (module: string, ...parts: unknown[]) => logger.debug(render(parts), from(module)),
    warn: (module: string, ...parts: unknown[]) => logger.warn(render(parts), from(module)),
    error: (module: string, ...parts: unknown[]) => logger.error(render(parts), from(module)),
  });
  sdk.LogService.setLevel(sdk.LogLevel.INFO);
  if (!httpModuleMuted) {
    sdk.LogService.muteModule("MatrixHttpClient");
    httpModuleMuted = true;
  }
}
