export { describeTotals, formatCost, usageTable } from "./format-usage.ts";
export { LimitedResponder, UsageLimitError } from "./limited-responder.ts";
export { PRICE_LIST } from "./price-list.ts";
export { type ModelPrice, type PriceList, PriceTable } from "./price-table.ts";
export {
  addUsage,
  daysBetween,
  NO_USAGE,
  USAGE_DIMENSIONS,
  UsageBook,
  type UsageDimension,
  type UsageEvent,
  type UsageRow,
  type UsageTotals,
  usageDay,
} from "./usage-book.ts";
export { usageCommand } from "./usage-command.ts";
export {
  DEFAULT_USAGE_CONFIG,
  type UsageConfig,
  type UsageConfigInput,
  type UsageLimit,
  usageConfigSchema,
} from "./usage-config.ts";
export { type LimitRefusal, overLimit, UsageLimits } from "./usage-limits.ts";
export { usageListener } from "./usage-listener.ts";
