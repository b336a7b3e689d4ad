/** Typed reads of `node:sqlite` result columns; a wrong type means the table was not ours. */

type Row = Record<string, unknown>;

export class UnexpectedColumnError extends Error {
  constructor(column: string, expected: string, actual: unknown) {
    super(
      `checkpoint column ${column} should hold ${expected}, found ${actual === null ? "null" : typeof actual}`,
    );
    this.name = "UnexpectedColumnError";
  }
}

export function textColumn(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== "string") throw new UnexpectedColumnError(column, "text", value);
  return value;
}

export function optionalTextColumn(row: Row, column: string): string | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : textColumn(row, column);
}

export function numberColumn(row: Row, column: string): number {
  const value = row[column];
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  throw new UnexpectedColumnError(column, "a number", value);
}

export function bytesColumn(row: Row, column: string): Uint8Array {
  const value = row[column];
  if (value instanceof Uint8Array) return value;
  throw new UnexpectedColumnError(column, "bytes", value);
}
