/**
 * The console as a person meets it at a terminal: one line saying what this
 * is and how to use it, a prompt, and the process's logs kept off the screen
 * unless asked for. Only on a terminal (stdin and stdout both TTYs): piped
 * input, as in the README's examples and the tests, prints the answers alone.
 */

/** The prompt a person types at. */
export const PROMPT = "> ";

/** The first line a person sees: what this is, how to talk, how to quit, how to go further. */
export const CONSOLE_GREETING =
  "Switchyard console: you are talking to your bot in this terminal. Type a message and press Enter; /help lists the commands; Ctrl-D quits. To connect Slack, Discord or Telegram, set SLACK_BOT_TOKEN, DISCORD_TOKEN or TELEGRAM_BOT_TOKEN and start again (switchyard start --help). Logs: LOG_LEVEL=info.";

/** Whether stdin and stdout are a terminal a person types at. */
export function atTerminal(
  stdin: { isTTY?: boolean } = process.stdin,
  stdout: { isTTY?: boolean } = process.stdout,
): boolean {
  return stdin.isTTY === true && stdout.isTTY === true;
}

/**
 * The log level for a process whose console runs at a terminal: `warn`, so
 * pino's lines do not interleave with the conversation, unless `LOG_LEVEL`
 * asks for another; undefined (the logger's own default) otherwise.
 */
export function terminalLogLevel(
  env: Readonly<Record<string, string | undefined>>,
  interactive: boolean,
): string | undefined {
  return interactive && !env.LOG_LEVEL?.trim() ? "warn" : undefined;
}
