/** The path the console is served under on the metrics server. */
export const CONSOLE_PATH = "/console";
