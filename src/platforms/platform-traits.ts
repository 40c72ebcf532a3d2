/**
 * What the bot knows of a platform before its SDK is imported: enough for
 * the worker's splitting and streaming and for `send_message`'s mentions,
 * which read these synchronously.
 */
export interface PlatformTraits {
  readonly platform: string;
  /** The SDK the channel's module imports, named when it fails to load. */
  readonly sdk: string;
  readonly maxLength: number;
  readonly canEdit: boolean;
  /**
   * How the platform shows what a turn is doing: `indicator`, its own
   * (Outbound.showActivity), at most once per `activityEveryMs`; `line`, a
   * status line of its own (Outbound.activityLine). Unset: typing only.
   */
  readonly activity?: "indicator" | "line";
  readonly activityEveryMs?: number;
  /** How a message mentions a user. */
  mention(user: string): string;
}
