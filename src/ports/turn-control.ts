import type { ConversationAddress } from "../core/conversation.ts";

/**
 * Stops the conversation's running turn from any process (`/stop`): true
 * when a turn was running and was told to stop, false when nothing ran. The
 * workers' turn signals implement it; a channel knows only this.
 */
export type StopTurn = (address: ConversationAddress) => Promise<boolean>;
