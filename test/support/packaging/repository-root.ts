import { fileURLToPath } from "node:url";

/** The repository's root folder, for tests that read its files or run its programs. */
export const REPOSITORY_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
