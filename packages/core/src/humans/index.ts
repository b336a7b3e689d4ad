export { HAND_TO_HUMAN, handToHumanTool, humanCommands } from "./human-commands.ts";
export {
  type Handoff,
  HUMAN_NOTICE,
  HUMAN_RELEASED,
  HumanHandoffs,
  type NoticeQueue,
} from "./human-handoffs.ts";
