/** What a mistyped command is told, in commander's own words. */
import { Command } from 'commander';

/**
 * A mistyped command: commander's own message and "Did you mean" (a program without a default
 * command gives them; ours has serve as default, so a probe with the same commands is asked),
 * then a short usage, not serve's help.
 */
export function unknownCommandText(program: Command, word: string): string {
  let said = '';
  const probe = new Command(program.name()).exitOverride().configureOutput({ writeErr: (text) => (said += text), writeOut: () => {} });
  for (const command of program.commands) probe.command(command.name());
  try {
    probe.parse([word], { from: 'user' });
  } catch {
    // The probe's unknown-command error: its text is in `said`.
  }
  const names = program.commands.map((c) => (c.name() === 'serve' ? 'serve (the default)' : c.name()));
  return `${said.trim()}\n\nUsage: ${program.name()} [command] [options]\nCommands: ${names.join(', ')}\n${program.name()} --help says what each does; ${program.name()} <command> --help, its options.`;
}
