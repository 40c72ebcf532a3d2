import { z } from "zod";
import {
  type Hook,
  HookTemplateError,
  parseHookTemplate,
  SIGNATURE_SCHEMES,
} from "../hooks/index.ts";
import { SCHEDULE_ID } from "../schedules/index.ts";
import { EnvTemplateError, parseEnvTemplate } from "./env-template.ts";
import { describeValue } from "./errors.ts";
import { namedList } from "./named-list.ts";
import { strictMap } from "./section-map.ts";
import { nonEmptyText, ownerField, targetField } from "./target-field.ts";

/**
 * Hooks an operator declares: a signed `POST /hooks/<name>` puts `prompt`,
 * filled in from the call's JSON body, into `target` as `owner` (see
 * docs/operate/hooks.md). The secret is never written in the file: it
 * names an environment variable.
 *
 * ```yaml
 * hooks:
 *   - name: ci-failed
 *     secret: ${CI_HOOK_SECRET}
 *     signature: switchyard   # or github, gitlab
 *     target: { platform: slack, workspace: T0123, channel: C0456 }
 *     owner: U0789
 *     prompt: "CI failed: {{body.summary}}. Look at the log and tell us what broke."
 * ```
 */
export type HooksConfig = readonly Hook[];

export const NO_HOOKS: HooksConfig = Object.freeze([]);

const secret = nonEmptyText(`the secret as \${VARIABLE}`).transform((value, ctx) => {
  try {
    if (parseEnvTemplate(value).some((part) => part.kind === "env")) return value;
    ctx.addIssue({
      code: "custom",
      message: `is written in the file. Put the secret in an environment variable and write secret: \${CI_HOOK_SECRET} (its name), so it never sits in the config.`,
    });
  } catch (error) {
    if (!(error instanceof EnvTemplateError)) throw error;
    ctx.addIssue({ code: "custom", message: error.message });
  }
  return z.NEVER;
});

const entry = strictMap(
  {
    name: nonEmptyText("a name such as ci-failed"),
    secret,
    signature: z
      .enum(SIGNATURE_SCHEMES as ["switchyard", "github", "gitlab"], {
        error: (iss) =>
          `${describeValue(iss.input)} is not a signature scheme. Write signature: switchyard (X-Switchyard-Signature, the default), github (X-Hub-Signature-256) or gitlab (X-Gitlab-Token).`,
      })
      .optional(),
    target: targetField,
    owner: ownerField("the user id it runs as"),
    prompt: nonEmptyText("what the bot should do with the call, with {{body.key}} placeholders"),
  },
  {
    takes: "A hook takes name:, secret:, signature:, target:, owner: and prompt:.",
    notAMap: (found) =>
      `expected a map with name:, secret:, target:, owner: and prompt:, found ${found}.`,
  },
).transform((raw, ctx): Hook => {
  if (!SCHEDULE_ID.test(raw.name)) {
    ctx.addIssue({
      code: "custom",
      path: ["name"],
      message: `${JSON.stringify(raw.name)} cannot be a hook's name: use up to 64 lower-case letters, digits, - and _, starting with a letter or digit (e.g. ci-failed); it is the path /hooks/<name>.`,
    });
    return z.NEVER;
  }
  try {
    return {
      name: raw.name,
      secret: raw.secret,
      signature: raw.signature ?? "switchyard",
      target: raw.target,
      owner: { user: raw.owner },
      prompt: parseHookTemplate(raw.prompt),
    };
  } catch (error) {
    if (!(error instanceof HookTemplateError)) throw error;
    ctx.addIssue({ code: "custom", path: ["prompt"], message: error.message });
    return z.NEVER;
  }
});

export const hooksSection = namedList(entry, "name", {
  one: "hook",
  many: "hooks",
  aKey: "a name",
});
