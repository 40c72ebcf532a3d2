import { dirname, resolve } from "node:path";
import { WarnOnce } from "../core/logger.ts";
import {
  describeShadowing,
  resolveSkills,
  skillsBlockCost,
  sourceLabel,
} from "../core/skills/index.ts";
import { loadSkills } from "../runtime/skill-folders.ts";
import { type CliEnv, readCliConfig, startSubcommand } from "./cli-env.ts";

const HELP = `Usage: switchyard skills [options]

Lists the skills the bot would offer (built-in, the config's folders, and a
workspace's), what shadows what, and what the skills block in the system
prompt costs in tokens.

Options:
  --config FILE        The config file (default: $SWITCHYARD_CONFIG, else ./switchyard.yaml if present)
  --workspace P:ID     Include that workspace's folders, e.g. slack:T0123
  --json               Print JSON
  -h, --help           This help`;

export async function runSkillsCommand(argv: string[], io: CliEnv): Promise<number> {
  const started = startSubcommand(argv, io, HELP, {
    workspace: { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (started === undefined) return 0;
  const { values, out, err } = started;
  const { file, config } = readCliConfig(values.config, io);
  const warnings: string[] = [];
  const logger = { warn: (message: string) => warnings.push(message) };
  const library = await loadSkills(config.skillFolders, {
    logger,
    ...(file ? { baseDir: dirname(resolve(file)) } : {}),
  });
  const resolution = resolveSkills(
    library.sourcesFor(values.workspace),
    { config: config.skills },
    { warnings: new WarnOnce(logger) },
  );
  const cost = skillsBlockCost(resolution.enabled);
  for (const warning of warnings) err(`warning: ${warning}\n`);
  if (values.json) {
    out(
      `${JSON.stringify(
        {
          available: resolution.enabled.length,
          total: resolution.skills.length,
          skills: resolution.skills.map((s) => ({
            name: s.skill.name,
            enabled: s.state.enabled,
            source: sourceLabel(s.skill.source),
            origin: s.skill.origin,
            shadows: s.shadowed.map((x) => ({ source: sourceLabel(x.source), origin: x.origin })),
          })),
          tokens: { block: cost.total, header: cost.header, perSkill: cost.perSkill },
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const width = Math.max(12, ...resolution.skills.map((s) => s.skill.name.length)) + 2;
  const lines = [
    `${resolution.enabled.length} of ${resolution.skills.length} skills available`,
    "",
  ];
  for (const s of resolution.skills) {
    const state = s.state.enabled ? "on " : "off";
    const shadow = s.shadowed.length > 0 ? ` (${describeShadowing(s).join("; ")})` : "";
    lines.push(`  ${s.skill.name.padEnd(width)}${state}  ${sourceLabel(s.skill.source)}${shadow}`);
  }
  lines.push(
    "",
    `Skills block: ~${cost.total} tokens (header ~${cost.header}, ~${cost.perSkill.toFixed(1)} per skill)`,
  );
  out(`${lines.join("\n")}\n`);
  return 0;
}
