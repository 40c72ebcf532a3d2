import type { AnyTool } from "../core/tools/tool.ts";
import { currentTimeTool } from "./current-time.ts";

/** The built-in tools every Switchyard bot starts with. */
export function builtinTools(): AnyTool[] {
  return [currentTimeTool()];
}
