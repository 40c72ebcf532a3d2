import { z } from "zod";
import { describeValue } from "./errors.ts";
import { sectionMap } from "./section-map.ts";

/**
 * Who may change which scope from chat, besides what the platform says
 * (workspace admins). User ids are qualified by platform, `slack:U0123`,
 * because the same id can mean different people on different platforms.
 */
export interface PermissionsConfig {
  /** May change every scope, global included. */
  readonly owners: readonly string[];
  /** May change the conversation, channel and workspace scopes, like platform admins. */
  readonly admins: readonly string[];
  /** Who may change a conversation's own tools: anyone in it (default), or admins only. */
  readonly conversation: "anyone" | "admins";
}

export const DEFAULT_PERMISSIONS: PermissionsConfig = Object.freeze({
  owners: Object.freeze([]) as readonly string[],
  admins: Object.freeze([]) as readonly string[],
  conversation: "anyone",
});

const USER = /^[a-z][a-z0-9_-]*:[A-Za-z0-9._@-]{1,128}$/;

const userList = (field: string) =>
  z.array(
    z
      .string({ error: (iss) => `expected a user id, found ${describeValue(iss.input)}.` })
      .refine((id) => USER.test(id), {
        error: (iss) =>
          `${describeValue(iss.input)} is not a platform-qualified user id. Write the platform first, e.g. slack:U0123ABCD or discord:123456789012345678.`,
      }),
    {
      error: (iss) =>
        `expected a list of user ids, e.g. [slack:U0123ABCD], found ${describeValue(iss.input)}. Put them under permissions.${field}.`,
    },
  );

export const permissionsSection = sectionMap(
  "permissions",
  {
    owners: userList("owners").default([]),
    admins: userList("admins").default([]),
    conversation: z
      .enum(["anyone", "admins"], {
        error: (iss) =>
          `expected anyone or admins, found ${describeValue(iss.input)}. It says who may change a conversation's own tools.`,
      })
      .default("anyone"),
  },
  { put: "owners:, admins: and conversation: lines" },
).transform((p): PermissionsConfig => Object.freeze(p));
