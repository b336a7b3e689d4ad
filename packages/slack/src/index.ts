export { type SlackAdapterConfig, slackAdapterConfigSchema } from "./config.ts";
export { createSlackAdapter, SlackAdapter } from "./slack-adapter.ts";
