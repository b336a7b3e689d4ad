/**
 * What a running turn shows before its answer is complete. The answering agent's text arrives in
 * pieces; steps that call tools or hand off are never shown as text, only as a progress line.
 */
export type TurnEvent =
  /** More of the answer, as the model writes it. */
  | { readonly kind: "text"; readonly agent: string; readonly delta: string }
  /**
   * The text since the last step belonged to a step that turned out to call a tool (or was a retried
   * attempt): it is not part of the answer and is taken back.
   */
  | { readonly kind: "discard"; readonly agent: string }
  /** What the team is doing now, in a short sentence ("billing is checking your invoice…"). */
  | { readonly kind: "progress"; readonly agent: string; readonly status: string }
  /** The agent's reply is complete and calls no tool: the text so far is the whole answer. */
  | { readonly kind: "complete"; readonly agent: string };

export type TurnEventListener = (event: TurnEvent) => void;

/** The progress sentence for a tool an agent calls: the tool's own `status` text, or a plain default. */
export function toolProgress(agent: string, tool: string, status: string | undefined): string {
  if (status !== undefined && status.trim() !== "") return `${agent} ${status.trim()}`;
  return `${agent} is using ${tool.replaceAll("_", " ")}…`;
}

export function handoffProgress(from: string, to: string): string {
  return `${from} is handing over to ${to}…`;
}
