/**
 * A D1 binding whose statements matching `pattern` fail as if D1 were unavailable; every other
 * statement runs on the real database. Used to check what happens when a write after a send fails.
 */
export function failingDb(db: D1Database, pattern: RegExp): D1Database {
  const failing = {
    bind: () => failing,
    run: () => Promise.reject(new Error('D1 is unavailable (test)')),
    first: () => Promise.reject(new Error('D1 is unavailable (test)')),
    all: () => Promise.reject(new Error('D1 is unavailable (test)')),
    raw: () => Promise.reject(new Error('D1 is unavailable (test)')),
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') return (sql: string) => (pattern.test(sql) ? failing : target.prepare(sql));
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
