/**
 * What a command (replay, readiness, listen, qr decode, a usage error) says to the person at the
 * terminal: plain text lines, not log lines. The server's events go through the logger (logger.ts).
 */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

/** stdout for results, stderr for problems and waits, one line each. */
export const terminal: CommandOutput = {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
};
