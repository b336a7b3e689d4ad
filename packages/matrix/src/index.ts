export { type MatrixAdapterConfig, matrixAdapterConfigSchema } from "./config.ts";
export { createMatrixAdapter, MatrixAdapter } from "./matrix-adapter.ts";
