import { VISION_CAPABILITY } from "../../core/attachments/model-vision.ts";
import { type Capabilities, capabilityStatus } from "../../core/availability/capabilities.ts";
import { findModel, type ModelsConfig } from "../../core/config/index.ts";
import { conversationAgent } from "../../turn/conversation-agent.ts";
import { conversationModel } from "../../turn/conversation-model.ts";
import type { ChatCommand } from "./registry.ts";
import { scopeName } from "./setting-args.ts";
import { settingCommand } from "./setting-command.ts";

const USAGE = "/model [<name>|default] [conversation|channel]";

/** The config's models, as a list for replies: "gpt-4.1-mini, gpt-4.1 (vision)". */
export function modelList(models: ModelsConfig): string {
  return models.list
    .map((m) => {
      const can = Object.entries(m.capabilities)
        .filter(([, on]) => on)
        .map(([name]) => name);
      return can.length > 0 ? `${m.name} (${can.join(", ")})` : m.name;
    })
    .join(", ");
}

/**
 * `/model`: shows the model this conversation uses; admins switch this
 * conversation or its channel to one of the config's `models:` list, from
 * the next turn. A name not in the list is refused with the list.
 */
export const modelCommand: ChatCommand = settingCommand({
  name: "model",
  usage: USAGE,
  summary: "The model I use here.",
  setForm: [
    "/model <name> [channel]",
    "Switches it to one of the configured models, or back to default.",
  ],
  change: "switch the model",
  show(stored, { where, ctx }) {
    const config = ctx.sources.config();
    const models = config.models;
    const { agent } = conversationAgent(config, where, stored);
    const chosen = conversationModel(models, where, stored, agent);
    const from =
      chosen === undefined
        ? "the bot's default"
        : chosen === stored.conversation.model
          ? "set for this conversation"
          : chosen === stored.channel.model
            ? "set for this channel"
            : chosen === agent.model
              ? `the ${agent.id} agent's`
              : "from the config";
    const name = chosen ?? ctx.sources.model ?? "the provider's default model";
    const choices =
      models.list.length > 0
        ? ` Admins can switch to: ${modelList(models)}.`
        : " No other models are configured (models.list in the config file).";
    return `Model here: ${name} (${from}).${choices}`;
  },
  refuse(value, { ctx }) {
    const models = ctx.sources.config().models;
    if (findModel(models, value)) return undefined;
    return models.list.length === 0
      ? `I can't switch to ${value.slice(0, 80)}: no models are listed in the config file (models.list), so this bot uses ${ctx.sources.model ?? "its default model"} only.`
      : `${value.slice(0, 80)} is not one of the configured models. Choose one of: ${modelList(models)}.`;
  },
  changed(scope, value, { ctx }) {
    return value === undefined
      ? `${capital(scopeName(scope))} uses the default model again from my next turn.`
      : `${capital(scopeName(scope))} uses ${value} from my next turn; ${sight(ctx.sources.capabilities(value))}.`;
  },
});

/** Whether a model sees the images people send, as the switch's reply says it. */
function sight(capabilities: Capabilities): string {
  const vision = capabilityStatus(capabilities, VISION_CAPABILITY);
  return vision.available
    ? "it can see images"
    : `it cannot see images (${vision.reason.replace(/\.$/, "")})`;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
