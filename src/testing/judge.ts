/**
 * Judge rubrics: a scenario step's `judge: { rubric, pass }` asks a model to
 * grade the bot's answer against the rubric, for behaviour no string match
 * can check ("declines politely and offers a human"). The judge answers a
 * score from 0 to 1 and a reason; below `pass` the step fails, and the
 * report shows the score and the reason either way.
 *
 * The judge is asked through the test bot's own model server: a scripted
 * scenario scripts the judge's answer like any other (a rule on
 * `Rubric:`), and under `--model real` the request is forwarded to the real
 * model, through the same `--cache`, so a judged suite also replays offline.
 */

/** The judge's verdict on one answer. */
export interface JudgeVerdict {
  /** From 0 (fails the rubric entirely) to 1 (meets it fully). */
  readonly score: number;
  readonly reason: string;
}

/** What a scenario asks the judge. */
export interface JudgeAsk {
  readonly rubric: string;
  /** What the person did: their message, or the button they pressed. */
  readonly said: string;
  /** The bot's answer. */
  readonly answer: string;
}

export const JUDGE_SYSTEM = [
  "You grade a chatbot's answer against a rubric.",
  "Score from 0 (the answer fails the rubric entirely) to 1 (it meets the rubric fully).",
  'Reply with only a JSON object, nothing before or after it: {"score": <number from 0 to 1>, "reason": "<one sentence>"}',
].join("\n");

/** The judge's chat messages: the instructions, then the rubric, the person's words and the answer. */
export function judgeMessages(ask: JudgeAsk): { role: "system" | "user"; content: string }[] {
  return [
    { role: "system", content: JUDGE_SYSTEM },
    {
      role: "user",
      content: `Rubric:\n${ask.rubric}\n\nThe person said:\n${ask.said}\n\nThe bot answered:\n${ask.answer}`,
    },
  ];
}

/**
 * Reads the judge's reply: a JSON object with a `score` from 0 to 1 and a
 * `reason`, alone or inside a code fence or a sentence. Anything else is a
 * string saying what was wrong, quoting the reply, never a throw.
 */
export function parseJudgeReply(text: string): JudgeVerdict | string {
  const quoted = JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…` : text);
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) {
    return `the judge did not answer with {"score", "reason"}: ${quoted}`;
  }
  let data: unknown;
  try {
    data = JSON.parse(text.slice(start, end + 1));
  } catch {
    return `the judge's answer is not valid JSON: ${quoted}`;
  }
  const { score, reason } = (data ?? {}) as { score?: unknown; reason?: unknown };
  const value = typeof score === "string" && score.trim() !== "" ? Number(score) : score;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) {
    return `the judge's score is not a number from 0 to 1: ${quoted}`;
  }
  return { score: value, reason: typeof reason === "string" ? reason.trim() : "" };
}

/**
 * Asks the judge at `url` (an OpenAI-compatible `/v1` base) and reads its
 * verdict; a failed request or an unreadable reply is a string naming what
 * went wrong.
 */
export async function askJudge(
  url: string,
  model: string,
  ask: JudgeAsk,
  timeoutMs: number,
): Promise<JudgeVerdict | string> {
  let response: Response;
  try {
    response = await fetch(`${url.replace(/\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer test" },
      body: JSON.stringify({ model, messages: judgeMessages(ask) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return `the judge could not be asked: ${(error as Error).message}`;
  }
  const body = await response.text();
  if (!response.ok) {
    return `the judge's model answered HTTP ${response.status}: ${body.slice(0, 300)}`;
  }
  let content: unknown;
  try {
    content = (JSON.parse(body) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]
      ?.message?.content;
  } catch {
    return `the judge's model sent something that is not a chat completion: ${body.slice(0, 300)}`;
  }
  return parseJudgeReply(typeof content === "string" ? content : "");
}

/** The report's line for a verdict: `judge 0.85 (pass 0.7): the reason`. */
export function describeVerdict(verdict: JudgeVerdict, pass: number): string {
  return `judge ${verdict.score} (pass ${pass})${verdict.reason ? `: ${verdict.reason}` : ""}`;
}
