// blocks.ts reads escapeMrkdwn here; the converter is format.ts, the splitter split.ts.
export { escapeMrkdwn } from "./format.ts";
