import { ConfigError, type SwitchyardConfig } from "../../core/config/index.ts";
import { EMPTY_CONFIG, readConfig } from "../../platforms/config.ts";
import { readConfigText } from "../../runtime/config-file.ts";
import { type Finding, ok, problem, reasonOf } from "./finding.ts";

/**
 * Reads the config file the way `switchyard start` would. The other checks
 * run on what it parsed, or on the empty config when it did not.
 */
export function checkConfigFile(file: string | undefined): {
  config: SwitchyardConfig;
  findings: Finding[];
} {
  if (file === undefined) {
    return {
      config: EMPTY_CONFIG,
      findings: [
        ok(
          "config",
          "no config file (--config, $SWITCHYARD_CONFIG or ./switchyard.yaml): every section is empty",
        ),
      ],
    };
  }
  try {
    const { config, warnings } = readConfig(readConfigText(file), file);
    const warned =
      warnings.length === 0 ? "" : `, with ${warnings.length} warning(s) that start logs`;
    return { config, findings: [ok("config", `${file} parses${warned}`)] };
  } catch (error) {
    const fix =
      error instanceof ConfigError
        ? "correct the file at that line; `switchyard tools --config FILE` reads it the same way"
        : "check the path (--config or SWITCHYARD_CONFIG) and that this user may read it";
    return { config: EMPTY_CONFIG, findings: [problem("config", reasonOf(error), fix)] };
  }
}
