import { failure, usageError } from './errors';

type Input = NodeJS.ReadStream;

async function readAll(stdin: Input): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a line on a terminal without echoing it; Ctrl+C cancels. */
function hiddenLine(stdin: Input, stderr: NodeJS.WriteStream, question: string): Promise<string> {
  stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          finish();
          return resolve(value);
        }
        if (ch === '\u0003') {
          finish();
          return reject(failure('Cancelled.'));
        }
        value = ch === '\u007f' || ch === '\b' ? value.slice(0, -1) : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}

/**
 * A secret from stdin: a hidden prompt on a terminal, else all of stdin without its final line break
 * (`printf %s "$KEY" | svc …` and `echo "$KEY" | svc …` read the same). Never an argument: it would
 * be in the shell history and the process list.
 */
export async function readSecret(stdin: Input, stderr: NodeJS.WriteStream, question: string, what: string): Promise<string> {
  const raw = stdin.isTTY ? await hiddenLine(stdin, stderr, question) : await readAll(stdin);
  const value = raw.replace(/\r?\n$/, '');
  if (value === '') throw usageError(`No ${what} on stdin: pipe it in (for example \`printf %s "$VALUE" | svc …\`) or type it at the prompt.`);
  return value;
}

/** A yes/no question on a terminal; anything but y/yes is no. */
export async function confirm(stdin: Input, stderr: NodeJS.WriteStream, question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: stdin, output: stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
