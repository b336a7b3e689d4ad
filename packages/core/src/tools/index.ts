export {
  createHttpTool,
  type HttpToolConfig,
  HttpToolTimeoutError,
  httpToolConfigSchema,
} from "./http-tool.ts";
export { httpToolParametersSchema, type ParametersSchema } from "./http-tool-parameters.ts";
export * from "./mcp/index.ts";
export { REQUEST_CONTEXT_HEADERS, type ToolRequestContext, toolRequestContext } from "./request-context.ts";
export { type CatalogEntry, ToolCatalog, type ToolSource } from "./tool-catalog.ts";
