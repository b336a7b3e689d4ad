/** Keys whose string values are secrets, wherever they sit in the configuration. */
const SECRET_KEY =
  /(token|secret|password|passwd|passphrase|api[-_]?key|private[-_]?key|recovery[-_]?key|signing)/i;

/**
 * Every secret a loaded configuration holds — tokens, keys, signing and webhook secrets, passwords
 * in URLs — found by walking it, so a section added later is covered without a list to keep up.
 * The logger is given them and replaces each wherever it would appear.
 */
export function configSecrets(...sources: unknown[]): string[] {
  const found = new Set<string>();
  const walk = (value: unknown, key: string | undefined, depth: number) => {
    if (depth > 10 || value === null || value === undefined) return;
    if (typeof value === "string") {
      if (key !== undefined && SECRET_KEY.test(key) && value.trim() !== "") found.add(value);
      const password = urlPassword(value);
      if (password) found.add(password);
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) walk(item, key, depth + 1);
      return;
    }
    if (typeof value === "object") {
      for (const [childKey, child] of Object.entries(value)) walk(child, childKey, depth + 1);
    }
  };
  for (const source of sources) walk(source, undefined, 0);
  return [...found];
}

function urlPassword(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return undefined;
  try {
    const password = new URL(value).password;
    return password === "" ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}
