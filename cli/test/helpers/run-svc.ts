import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** The built bundle, run with this Node as `svc` would be. */
export const SVC_BUNDLE = path.join(import.meta.dirname, '..', '..', 'dist', 'svc.mjs');

export interface SvcResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SvcOptions {
  /** The whole environment of the process besides PATH and HOME (nothing of the test's own leaks in). */
  env?: Record<string, string>;
  stdin?: string;
  timeoutMs?: number;
}

function spawnSvc(args: string[], options: SvcOptions): ChildProcess {
  return spawn(process.execPath, [SVC_BUNDLE, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/nonexistent', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Runs `svc <args>` to its end (killed after timeoutMs): exit code, stdout, stderr. */
export function runSvc(args: string[], options: SvcOptions = {}): Promise<SvcResult> {
  const child = spawnSvc(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdin!.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} did not end within ${options.timeoutMs ?? 30_000} ms\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      // 'exit' can come before the last output: let the pipes drain.
      setImmediate(() => resolve({ code, stdout, stderr }));
    });
  });
}

/** A long-running `svc` (logs --follow): its output so far, a wait for some text, and a signal to end it. */
export function startSvc(args: string[], options: SvcOptions = {}) {
  const child = spawnSvc(args, options);
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d) => (output.stdout += d));
  child.stderr!.on('data', (d) => (output.stderr += d));
  child.stdin!.end();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    output,
    /** Resolves once `test` holds of the output; rejects after timeoutMs. */
    async waitFor(test: (o: typeof output) => boolean, timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!test(output)) {
        if (child.exitCode !== null) throw new Error(`svc ended (${child.exitCode}) first:\n${output.stdout}\n${output.stderr}`);
        if (Date.now() > deadline) throw new Error(`svc ${args.join(' ')}: not seen within ${timeoutMs} ms:\n${output.stdout}\n${output.stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    /** Sends the signal and waits for the exit (SIGKILL after 5 s). */
    async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
