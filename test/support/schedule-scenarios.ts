import { expect } from "vitest";
import { botSaid, type StartDriver } from "./command-scenarios.ts";

/** How a platform's scenario types `/schedule add`: the member's target, refused, and whether a refusal can happen at all. */
export interface ScheduleScenario {
  /** What follows the prompt in the member's line: a channel they may not schedule into (` in <#C1|ops>`), or `""` where they type in a channel. */
  readonly refusedTarget: string;
  /** The person at the console owns the bot: nothing of theirs is refused. */
  readonly memberIsAdmin?: boolean;
}

// Any weekday time in Berlin: the reply names the resolved pattern and three runs in that zone.
const RUN = String.raw`(Mon|Tue|Wed|Thu|Fri) \d{4}-\d{2}-\d{2} 09:00 Europe/Berlin`;

/**
 * `/schedule add` from chat: a member's schedule into a channel is refused
 * as `/tools` refuses the channel scope, and the workspace's list as the
 * workspace scope; the admin's schedule is made, with the resolved pattern
 * and the next three runs, and listed; a time it cannot read is named.
 */
export async function scheduleAddFromChat(
  start: StartDriver,
  scenario: ScheduleScenario,
): Promise<void> {
  const d = await start({ config: "permissions:\n  admins: [ADMIN]\n" });
  try {
    if (!scenario.memberIsAdmin) {
      await d.say(`/schedule add "every 2h" check the deploy queue${scenario.refusedTarget}`);
      const refused = await botSaid(d, /can change the channel scope/);
      expect(refused).toContain(
        "Only workspace admins or the bot's configured admins can change the channel scope, and a schedule that speaks in a channel is a channel-scope change.",
      );
      await d.say("/schedule list all");
      const list = await botSaid(d, /the workspace scope/);
      expect(list).toMatch(
        /^Only workspace admins or the bot's configured admins can see every schedule of the workspace \(the workspace scope\)\. Ask one of them/,
      );
    }
    await d.say('/schedule add "whenever" summarise yesterday', "admin");
    expect(await botSaid(d, /I can't schedule that/, "admin")).toContain("whenever");
    await d.say('/schedule add "weekdays 09:00 Europe/Berlin" summarise yesterday', "admin");
    const made = await botSaid(
      d,
      /^Scheduled s\d+ here, running as you: summarise yesterday/,
      "admin",
    );
    expect(made).toMatch(/When: cron .0 9 \* \* 1-5. \(Europe\/Berlin\)/);
    expect(made).toMatch(new RegExp(`Next runs: ${RUN}; ${RUN}; ${RUN}`));
    const id = /^Scheduled (s\d+)/.exec(made)?.[1] as string;
    await d.say("/schedule list", "admin");
    const listed = await botSaid(d, /^Schedules here and yours \(1\):/, "admin");
    expect(listed).toMatch(
      new RegExp(
        `${id} · cron .0 9 \\* \\* 1-5. \\(Europe/Berlin\\) · .* · next ${RUN} · not run yet`,
      ),
    );
    // The schedule is in Redis, where every worker's ticks read it.
    const stored = await d.pipe.app.scheduleDesk.list();
    expect(stored.map((r) => r.schedule.id)).toContain(id);
    await d.say(`/schedule remove ${id}`, "admin");
    await botSaid(d, new RegExp(`^Removed ${id}; it will not run again\\.`), "admin");
    expect((await d.pipe.app.scheduleDesk.list()).map((r) => r.schedule.id)).not.toContain(id);
  } finally {
    await d.close();
  }
}
