import type { Responder, Turn, TurnAnswer } from "../engine/responder.ts";

/** A responder from a function, recording every turn it was given. */
export function scriptedResponder(
  answer: (turn: Turn) => TurnAnswer | string | Promise<TurnAnswer | string>,
) {
  const turns: Turn[] = [];
  const responder: Responder & { turns: Turn[] } = {
    turns,
    async respond(turn) {
      turns.push(turn);
      const result = await answer(turn);
      return typeof result === "string" ? { text: result, agent: "scripted" } : result;
    },
  };
  return responder;
}

/** Answers `echo: <text>`. */
export const echoResponder = () => scriptedResponder((turn) => `echo: ${turn.text}`);
