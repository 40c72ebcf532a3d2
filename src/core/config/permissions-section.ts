import { z } from "zod";
import { type CommandPolicy, DEFAULT_COMMAND_POLICY } from "../commands/permissions.ts";
import { describeValue } from "./errors.ts";
import { sectionMap } from "./section-map.ts";

/**
 * Who may change which scope from chat, besides what the platform says
 * (workspace admins): the policy the commands enforce, read from the file.
 * User ids are qualified by platform, `slack:U0123`, because the same id can
 * mean different people on different platforms.
 */
export type PermissionsConfig = CommandPolicy;

export const DEFAULT_PERMISSIONS: PermissionsConfig = DEFAULT_COMMAND_POLICY;

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
