import type { MatrixAdapterConfig } from "./config.ts";
import type { MatrixAdapter, MatrixAdapterDeps } from "./matrix-adapter.ts";

export { type MatrixAdapterConfig, matrixAdapterConfigSchema } from "./config.ts";
export type { MatrixAdapter } from "./matrix-adapter.ts";

/**
 * Validates the `matrix:` config and builds the adapter. The adapter's code is loaded here, not
 * when the package is imported, so that the schema alone stays cheap to load for the many
 * configurations without Matrix (matrix-bot-sdk itself loads later still, on the first check or start).
 */
export async function createMatrixAdapter(
  config: MatrixAdapterConfig,
  deps: MatrixAdapterDeps = {},
): Promise<MatrixAdapter> {
  const { MatrixAdapter } = await import("./matrix-adapter.ts");
  return new MatrixAdapter(config, deps);
}
