/** About 200 characters, different every turn: the message size the figures assume. */
export function message200(kind: string, turn: number): string {
  const head = `${kind} ${turn}: `;
  return head + "lorem ipsum dolor sit amet ".repeat(8).slice(0, 200 - head.length);
}
