import { describe, expect, it } from "vitest";
import { ControlState, controlForMessage, controlForTurn, nextMemoryStep } from "./control-state.ts";

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
    [START_SESSION, null, "load-context"],
    [START_SESSION, "anything", "finish"],
    [PROCESS_MESSAGE, null, "add-entry"],
    [PROCESS_MESSAGE, "add_entry", "finish"],
    [PROCESS_MESSAGE_AND_FLUSH, null, "add-entry"],
    [PROCESS_MESSAGE_AND_FLUSH, "add_entry", "put-context"],
    [PROCESS_MESSAGE_AND_FLUSH, "put_context", "finish"],
    [END_SESSION, null, "put-context"],
    [END_SESSION, "put_context", "finish"],
  ] as const)("%s after %s → %s", (control, lastTool, expected) => {
    expect(nextMemoryStep(control, lastTool)).toBe(expected);
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
