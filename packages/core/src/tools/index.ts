export { createHttpTool, type HttpToolConfig, httpToolConfigSchema } from "./http-tool.ts";
export { type CatalogEntry, ToolCatalog } from "./tool-catalog.ts";
