import { describe, expect, it } from "vitest";
import {
  ControlState,
  controlForMessage,
  controlForTurn,
  needsModel,
  nextMemoryStep,
} from "./control-state.ts";

const { START_SESSION, PROCESS_MESSAGE, PROCESS_MESSAGE_AND_FLUSH, END_SESSION } = ControlState;

describe("controlForMessage", () => {
  it.each([
    [1, 6, PROCESS_MESSAGE],
    [5, 6, PROCESS_MESSAGE],
    [6, 6, PROCESS_MESSAGE_AND_FLUSH],
    [7, 6, PROCESS_MESSAGE],
    [12, 6, PROCESS_MESSAGE_AND_FLUSH],
    [1, 1, PROCESS_MESSAGE_AND_FLUSH],
    [0, 6, PROCESS_MESSAGE],
  ])("message %i with flushEvery %i → %s", (count, flushEvery, expected) => {
    expect(controlForMessage(count, flushEvery)).toBe(expected);
  });
});

describe("nextMemoryStep", () => {
  it.each([
    [null, "record"],
    ["add_entry", "put-context"],
    ["put_context", "finish"],
  ] as const)("after %s → %s", (lastTool, expected) => {
    expect(nextMemoryStep(lastTool)).toBe(expected);
  });
});

describe("needsModel", () => {
  it.each([
    [START_SESSION, false],
    [PROCESS_MESSAGE, false],
    [PROCESS_MESSAGE_AND_FLUSH, true],
    [END_SESSION, true],
  ] as const)("%s → %s", (control, expected) => {
    expect(needsModel(control)).toBe(expected);
  });
});

describe("controlForTurn", () => {
  it.each([
    [0, 2, 6, ControlState.PROCESS_MESSAGE],
    [4, 6, 6, ControlState.PROCESS_MESSAGE_AND_FLUSH],
    [5, 7, 6, ControlState.PROCESS_MESSAGE_AND_FLUSH],
    [6, 8, 6, ControlState.PROCESS_MESSAGE],
    [6, 7, 6, ControlState.PROCESS_MESSAGE],
    [0, 1, 1, ControlState.PROCESS_MESSAGE_AND_FLUSH],
  ])("a turn from %i to %i messages with flushEvery %i → %s", (before, after, flushEvery, expected) => {
    expect(controlForTurn(before, after, flushEvery)).toBe(expected);
  });
});
