import pc from 'picocolors';

export type Colors = ReturnType<typeof pc.createColors>;
type Env = Record<string, string | undefined>;

/** Colours only on a terminal, and never when NO_COLOR is set to anything (no-color.org). */
export function colorEnabled(env: Env, isTTY: boolean | undefined): boolean {
  return isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** Every copy of a registered secret in `text` reads ***. */
export function redact(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('***');
  return out;
}

interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Where the commands write: human lines or JSON on stdout, messages on stderr, with secrets masked. */
export interface Io {
  readonly json: boolean;
  readonly color: Colors;
  /** Whether stdout and stdin are a terminal (a person is there to answer a question). */
  readonly interactive: boolean;
  out(line?: string): void;
  err(line: string): void;
  printJson(value: unknown): void;
  /** A value that must never be printed (owner key, secret value). */
  mask(secret: string): void;
}

/** The values masked in this process's output, whoever writes it (the commands' Io, main's error line). */
export const maskedValues = new Set<string>();

export function createIo(options: { stdout: Stream; stderr: Stream; stdinIsTTY: boolean | undefined; env: Env; json: boolean }): Io {
  const secrets = maskedValues;
  const color = pc.createColors(colorEnabled(options.env, options.stdout.isTTY));
  return {
    json: options.json,
    color,
    interactive: options.stdout.isTTY === true && options.stdinIsTTY === true,
    out: (line = '') => void options.stdout.write(`${redact(line, secrets)}\n`),
    err: (line) => void options.stderr.write(`${redact(line, secrets)}\n`),
    printJson: (value) => void options.stdout.write(`${redact(JSON.stringify(value, null, 2), secrets)}\n`),
    mask: (secret) => void secrets.add(secret),
  };
}
