import { CheckpointDataError } from "./errors.ts";

/** Typed reads of `node:sqlite` result columns; a wrong type means the row was not written by us. */

type Row = Record<string, unknown>;

function unexpected(column: string, expected: string, actual: unknown): CheckpointDataError {
  return new CheckpointDataError(
    `column ${column} should hold ${expected}, found ${actual === null ? "null" : typeof actual}`,
  );
}

export function textColumn(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== "string") throw unexpected(column, "text", value);
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
  throw unexpected(column, "a number", value);
}

export function bytesColumn(row: Row, column: string): Uint8Array {
  const value = row[column];
  if (value instanceof Uint8Array) return value;
  throw unexpected(column, "bytes", value);
}
