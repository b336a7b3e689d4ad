import { type Command, Engine, type Responder, type Store, type TurnObserver } from "@switchboard/core";
import Keyv from "keyv";
import { ConsoleAdapter } from "../../packages/cli/src/console/console-adapter.ts";

export interface ConsoleEngineOptions {
  readonly store: Store;
  readonly responder: Responder;
  readonly commands: readonly Command[];
  readonly observers?: readonly TurnObserver[];
  /** Also told about every line the console prints. */
  readonly onPrint?: (line: string) => void;
}

/** A real engine behind the console adapter; `say` types a line and returns what was printed for it. */
export async function startConsoleEngine(options: ConsoleEngineOptions) {
  const printed: string[] = [];
  const print = (line: string) => {
    printed.push(line);
    options.onPrint?.(line);
  };
  const console = new ConsoleAdapter({ print, state: new Keyv<string>(), userId: "ana" });
  const engine = new Engine({
    store: options.store,
    adapters: [console],
    responder: options.responder,
    commands: options.commands,
    ...(options.observers ? { observers: options.observers } : {}),
  });
  await engine.start();
  return {
    engine,
    console,
    printed,
    /** Types a line and waits until the engine has answered it; returns the lines printed meanwhile. */
    async say(line: string): Promise<string[]> {
      const before = printed.length;
      await console.handleLine(line);
      await engine.idle();
      return printed.slice(before);
    },
  };
}
