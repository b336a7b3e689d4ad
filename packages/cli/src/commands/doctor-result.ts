/** One line of `switchboard doctor`. */
export interface CheckResult {
  readonly name: string;
  /** A warning works but will not do what the configuration asks for; it does not fail the run. */
  readonly status: "ok" | "warning" | "problem" | "skipped";
  readonly detail: string;
  /** What to do about a problem or warning. */
  readonly fix?: string;
}
