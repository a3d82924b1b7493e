/** Times as the pages show them: local date and time, or a word for none. */
export const when = (ms: number | null | undefined, none = 'never'): string => (ms === null || ms === undefined ? none : new Date(ms).toLocaleString());
