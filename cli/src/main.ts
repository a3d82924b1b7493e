import os from 'node:os';
import { CommanderError } from 'commander';
import { EXIT_USAGE } from './errors';
import { errorReport } from './messages';
import { maskedValues, redact } from './output';
import { buildProgram } from './program';

/** Runs the CLI and returns its exit code: messages on stderr, never a stack trace unless SVC_DEBUG=1. */
export async function main(argv: string[]): Promise<number> {
  const rt = { env: process.env, home: os.homedir(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
  try {
    await buildProgram(rt).parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    // commander has printed its own message; help and --version are not errors.
    if (err instanceof CommanderError) return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : EXIT_USAGE;
    const report = errorReport(err, argv.includes('--json'));
    if (rt.env.SVC_DEBUG === '1') rt.stderr.write(redact(`${(err as Error)?.stack ?? String(err)}\n`, maskedValues));
    rt.stderr.write(redact(report.text, maskedValues));
    return report.exitCode;
  }
}

// A reader that stops early (`svc tickets list | head`) is no error of the CLI.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    throw err;
  });
}

// main answers every failure with an exit code; only a bug rejects, and Node reports that as it should.
void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
