/**
 * The fake Telegram of bench/telegram-calls.ts, in a process of its own so
 * that the bench's CPU figures are the calling side's alone: a private chat
 * for each of the first N ids (argv), its apiRoot on the first line of
 * stdout, and an end when stdin closes.
 */
import { startFakeTelegram } from "../src/testing/fakes/telegram-api.ts";

const telegram = await startFakeTelegram();
const chats = Number(process.argv[2] ?? 1000);
for (let id = 1; id <= chats; id++) {
  telegram.addChat({ id, type: "private", title: `person ${id}` });
}
process.stdout.write(`${telegram.apiRoot}\n`);
process.stdin.resume();
process.stdin.on("end", () => void telegram.close().then(() => process.exit(0)));
