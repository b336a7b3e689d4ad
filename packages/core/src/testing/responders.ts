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

export interface StreamedAnswerScript {
  /** The answer in the pieces a model would stream it in. */
  readonly pieces: readonly string[];
  /** Time between two pieces. */
  readonly paceMs: number;
  /** Called with the time of the first piece (model first token), per turn. */
  readonly onFirstPiece?: (at: number) => void;
}

/**
 * An answer written the way a streaming model writes it: the pieces are passed to the turn's
 * listener at a set pace, then the whole text is the answer.
 */
export function streamedAnswer(script: StreamedAnswerScript) {
  return async (turn: Turn): Promise<string> => {
    for (const [index, piece] of script.pieces.entries()) {
      turn.signal.throwIfAborted();
      if (index === 0) script.onFirstPiece?.(Date.now());
      turn.onEvent?.({ kind: "text", agent: "scripted", delta: piece });
      await new Promise((resolve) => setTimeout(resolve, script.paceMs));
    }
    return script.pieces.join("");
  };
}

/** A long answer in small pieces: numbered sentences, so any lost or doubled piece shows. */
export function longAnswerPieces(sentences: number): string[] {
  const pieces: string[] = [];
  for (let index = 1; index <= sentences; index++) {
    pieces.push(`Sentence ${index} `, "of the ", "streamed ", `answer.${index % 8 === 0 ? "\n\n" : " "}`);
  }
  return pieces;
}
