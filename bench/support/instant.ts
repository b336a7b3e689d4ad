import { AIMessage } from "@langchain/core/messages";
import { ScriptedChatModel, type ScriptedModelOptions } from "./scripted-model.ts";
import { message200 } from "./text.ts";

/** A model that answers every prompt at once with a ~200-character reply. */
export function instantModel(options: ScriptedModelOptions = {}): ScriptedChatModel {
  let answers = 0;
  return new ScriptedChatModel(() => {
    answers += 1;
    return new AIMessage(message200("answer", answers));
  }, options);
}
