/**
 * Exit codes: 0 done; 1 the service refused, could not be reached, or a check did not pass, or a
 * runtime error; 2 a usage error (bad arguments, missing configuration, unreadable or bad files).
 */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** One refusal among several (a file of `tickets apply`), named by where it comes from. */
export interface Problem {
  /** The file (or ticket id) at fault. */
  where: string;
  code?: string;
  message: string;
}

/** An error the CLI reports as one message on stderr (never a stack trace) and exits with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: typeof EXIT_FAILED | typeof EXIT_USAGE,
    readonly problems: Problem[] = [],
    readonly code?: string,
  ) {
    super(message);
  }
}

export const usageError = (message: string, problems: Problem[] = []) => new CliError(message, EXIT_USAGE, problems);
export const failure = (message: string, problems: Problem[] = [], code?: string) => new CliError(message, EXIT_FAILED, problems, code);

/** The service's flat error body `{ code, message, detail? }` with the status it came with. */
export class ServiceError extends CliError {
  constructor(
    readonly status: number,
    readonly serviceCode: string,
    readonly serviceMessage: string,
    readonly detail?: unknown,
  ) {
    super(`${serviceCode}: ${serviceMessage}`, EXIT_FAILED, [], serviceCode);
  }
}
