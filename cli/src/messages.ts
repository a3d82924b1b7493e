import { CliError, EXIT_FAILED, type Problem } from './errors';

/** What an error that is not the CLI's own says: its code and message, without its stack. */
export function runtimeMessage(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

const problemLine = (p: Problem) => `  ${p.where}: ${p.code ? `${p.code}: ` : ''}${p.message}`;

/** The error report on stderr (one JSON line with --json) and the exit code. */
export function errorReport(err: unknown, json: boolean): { text: string; exitCode: number } {
  const cli = err instanceof CliError ? err : null;
  const message = cli ? cli.message : runtimeMessage(err);
  const problems = cli?.problems ?? [];
  const text = json
    ? JSON.stringify({ error: { ...(cli?.code ? { code: cli.code } : {}), message, ...(problems.length ? { problems } : {}) } })
    : [`svc: ${message}`, ...problems.map(problemLine)].join('\n');
  return { text: `${text}\n`, exitCode: cli ? cli.exitCode : EXIT_FAILED };
}
