import { Command } from 'commander';
import { registerDeadLetters } from './commands/dead-letters';
import { registerDestinations } from './commands/destinations';
import { registerLogin } from './commands/login';
import { registerLogs } from './commands/logs';
import { registerPresets } from './commands/presets';
import { registerReplay } from './commands/replay';
import { registerStats } from './commands/stats';
import { registerSecrets } from './commands/secrets';
import { registerTickets } from './commands/tickets';
import { createContext, type Runtime } from './context';

declare const SVC_VERSION: string;

const EXIT_CODES = `
Exit codes: 0 done; 1 the service refused, could not be reached, a check did not pass, or another
failure; 2 a usage error (bad arguments, no configuration, unreadable or bad ticket files).
Configuration: SVC_URL + SVC_OWNER_KEY, else the file \`svc login\` writes ($SVC_CONFIG, or
$XDG_CONFIG_HOME/svc/config.json, or ~/.config/svc/config.json). NO_COLOR turns colours off.`;

/** The command tree; errors of commander itself are thrown (exitOverride), main decides the exit. */
export function buildProgram(rt: Runtime): Command {
  const program = new Command('svc')
    .description("The webhook gateway's command line: tickets as code, dry runs, logs and secret keys of one project")
    .version(typeof SVC_VERSION === 'string' ? SVC_VERSION : '0.0.0-dev', '-V, --version')
    .option('--json', 'machine-readable output on stdout (JSON; `logs` prints one JSON object a line)')
    .addHelpText('after', EXIT_CODES)
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ writeOut: (s) => void rt.stdout.write(s), writeErr: (s) => void rt.stderr.write(s) })
    .exitOverride();
  const context = (cmd: Command) => createContext(rt, cmd.optsWithGlobals().json === true);
  registerLogin(program, context);
  registerTickets(program, context);
  registerLogs(program, context);
  registerSecrets(program, context);
  registerPresets(program, context);
  registerDestinations(program, context);
  registerDeadLetters(program, context);
  registerReplay(program, context);
  registerStats(program, context);
  return program;
}
