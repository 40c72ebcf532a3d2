import type { SettingName, SettingScope, StoredSettings } from "../../store/index.ts";
import { adminsOnly, type ChatCommand, type CommandCall, mayUse } from "./registry.ts";
import { parseSettingArgs } from "./setting-args.ts";

/** What one chat setting (`/model`, `/queue`) says; {@link settingCommand} does the rest. */
export interface SettingCommandSpec {
  readonly name: SettingName;
  /** The whole grammar, ending a problem with the arguments: "/queue [<mode>|default] [conversation|channel]". */
  readonly usage: string;
  /** `/help`'s line for the bare command, shown to anyone. */
  readonly summary: string;
  /** `/help`'s line for setting it, shown to admins: its form and what it does. */
  readonly setForm: readonly [usage: string, summary: string];
  /** What a person who is not an admin is told they may not do: "switch the model". */
  readonly change: string;
  /** The reply to the bare command: the setting here, and where it comes from. */
  show(stored: StoredSettings, call: CommandCall): string;
  /** Why a value cannot be set, or undefined when it can. */
  refuse(value: string, call: CommandCall): string | undefined;
  /** The reply once `value` is stored (undefined: cleared, so the config decides again). */
  changed(scope: SettingScope, value: string | undefined, call: CommandCall): string;
}

/**
 * A command over one chat setting: anyone sees it, admins set it for this
 * conversation or its channel (`default` clears it), from the next turn.
 * Every setting reads its arguments, checks who asks and stores the value
 * the same way; only what it shows, accepts and answers is its own.
 */
export function settingCommand(spec: SettingCommandSpec): ChatCommand {
  const reply = (text: string) => ({ kind: "reply", text }) as const;
  return {
    name: spec.name,
    audience: "anyone",
    help: [
      { usage: `/${spec.name}`, summary: spec.summary, audience: "anyone" },
      { usage: spec.setForm[0], summary: spec.setForm[1], audience: "admins" },
    ],
    async run(call) {
      const { args, where, actor, ctx } = call;
      const parsed = parseSettingArgs(args, spec.usage);
      if (parsed.kind === "bad") return reply(parsed.problem);
      const store = ctx.sources.store.settings;
      if (parsed.kind === "show") return reply(spec.show(await store.read(where), call));
      if (!mayUse(actor, "admins", ctx.policy)) return adminsOnly(spec.change);
      const problem = parsed.value === undefined ? undefined : spec.refuse(parsed.value, call);
      if (problem !== undefined) return reply(problem);
      await store.write(parsed.scope, where, spec.name, parsed.value);
      return reply(spec.changed(parsed.scope, parsed.value, call));
    },
  };
}
