import { z } from "zod";
import { describeValue } from "./errors.ts";
import { flag } from "./flag.ts";
import { isName, NAME_RULE } from "./names.ts";

/** The `skills:` section: the global scope's skill toggles, one per skill name. */
export const skillsSection = z
  .record(z.string(), flag, {
    error: (iss) =>
      `expected a map of skill names to on/off, found ${describeValue(iss.input)}. Put one "skill-name: on" line per skill under skills:.`,
  })
  .superRefine((skills, ctx) => {
    const seen = new Map<string, string>();
    for (const name of Object.keys(skills)) {
      if (!isName(name)) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: `${describeValue(name)} is not a skill name. Use ${NAME_RULE}, e.g. meeting-notes: off.`,
        });
        continue;
      }
      // Skill names ignore case, so two spellings would be one skill switched twice.
      const earlier = seen.get(name.toLowerCase());
      if (earlier !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: `names the same skill as skills.${earlier} (skill names ignore case). Keep one of the two.`,
        });
      }
      seen.set(name.toLowerCase(), name);
    }
  });
