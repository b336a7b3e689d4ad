/**
 * The shell commands of a Dockerfile's stage, so a test can replay the image's build outside a
 * container: instructions joined across `\` continuations (comment lines inside them dropped, as
 * Docker does), stages named by `FROM … AS <name>`. Only the shell form of RUN is read, the only
 * one the Dockerfile uses.
 */
export interface DockerInstruction {
  readonly keyword: string;
  readonly arguments: string;
}

export function dockerInstructions(dockerfile: string): DockerInstruction[] {
  const instructions: DockerInstruction[] = [];
  let pending = "";
  for (const line of dockerfile.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("#") || (trimmed === "" && pending === "")) continue;
    const continued = trimmed.endsWith("\\");
    pending += `${continued ? trimmed.slice(0, -1).trimEnd() : trimmed} `;
    if (continued) continue;
    const text = pending.trim().replace(/\s+/g, " ");
    pending = "";
    const space = text.indexOf(" ");
    instructions.push({ keyword: text.slice(0, space).toUpperCase(), arguments: text.slice(space + 1) });
  }
  return instructions;
}

/** The RUN commands of the stage named `stage`, in order. */
export function runCommandsOfStage(dockerfile: string, stage: string): string[] {
  let current: string | undefined;
  const commands: string[] = [];
  for (const instruction of dockerInstructions(dockerfile)) {
    if (instruction.keyword === "FROM") current = / AS (\S+)$/i.exec(instruction.arguments)?.[1];
    else if (instruction.keyword === "RUN" && current === stage) commands.push(instruction.arguments);
  }
  if (commands.length === 0) throw new Error(`the Dockerfile has no RUN command in a stage named ${stage}`);
  return commands;
}
