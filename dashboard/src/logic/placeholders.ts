/**
 * The placeholders a mail template or newsletter uses, as src/mail/compose.ts fills them: ${name}
 * (letters, digits, _; not starting with a digit); $${name} is a literal and names none.
 */
const PLACEHOLDER = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The distinct placeholder names of the texts, in the order they first appear. */
export function placeholdersOf(...texts: string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) {
    for (const [, literal, name] of text.matchAll(PLACEHOLDER)) if (!literal) names.add(name);
  }
  return [...names];
}
