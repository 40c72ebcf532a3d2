import type { User } from "grammy/types";
import { expect } from "vitest";
import type { Responder, ScriptedReply } from "../../src/testing/fakes/openai-server.ts";
import type { FakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { until } from "./channels.ts";

/**
 * A crowd writing to one Telegram bot at once, each person in a private
 * chat of their own, whose answers all end together: what the tests of
 * Telegram's flood limits, its paid broadcasts and a pace shared across
 * processes put the bot through.
 */

/** `count` people, ids from `firstId` on. */
export function crowd(count: number, firstId: number): User[] {
  return Array.from({ length: count }, (_, i) => ({
    id: firstId + i,
    is_bot: false,
    first_name: `Person ${i}`,
  }));
}

/**
 * Answers each person with `reply(id)` once all `people` have asked, so every
 * answer ends at about the same moment, on whichever process runs the turn.
 */
export function togetherResponder(people: number, reply: (id: number) => ScriptedReply): Responder {
  let asked = 0;
  let everyoneAsked: () => void = () => {};
  const everyone = new Promise<void>((resolve) => {
    everyoneAsked = resolve;
  });
  return async (request) => {
    if (++asked === people) everyoneAsked();
    await everyone;
    const raw = JSON.stringify(request.body?.messages ?? []);
    return reply(Number(/person (\d+) asks/.exec(raw)?.[1] ?? 0));
  };
}

/** Every person writes "person <id> asks" in their own private chat, at once. */
export function everyoneAsks(telegram: FakeTelegram, people: readonly User[]): void {
  for (const person of people) {
    telegram.addChat({ id: person.id, type: "private", title: person.first_name });
    telegram.userSends({ chat: person.id, from: person, text: `person ${person.id} asks` });
  }
}

/** Waits until every person has their answer, then checks each got exactly that one message. */
export async function answeredOnce(
  telegram: FakeTelegram,
  people: readonly User[],
  answerFor: (id: number) => string,
): Promise<void> {
  const answered = (p: User) => telegram.botMessages(p.id).some((m) => m.text === answerFor(p.id));
  await until(() => people.every(answered) || undefined, 60_000).catch((error: unknown) => {
    // Name who is still waiting and what their chat saw, so a timeout says where it stuck.
    const waiting = people.filter((p) => !answered(p));
    const first = waiting[0];
    const calls = first
      ? telegram.calls
          .filter((c) => Number(c.params.chat_id) === first.id)
          .map((c) => `${c.method} ${c.status} ${String(c.params.text ?? "").slice(0, 40)}`)
      : [];
    throw new Error(
      `${String(error)}: ${waiting.length} of ${people.length} still without their answer; the first, ${first?.id}, saw: ${JSON.stringify(calls)}`,
    );
  });
  for (const person of people) {
    expect(telegram.botMessages(person.id).map((m) => m.text)).toEqual([answerFor(person.id)]);
  }
}
