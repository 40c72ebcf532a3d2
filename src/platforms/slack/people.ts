import type { WebClient } from "@slack/web-api";
import type { Actor } from "../../core/commands/index.ts";

/** How long what users.info said about someone is trusted. */
const USER_CACHE_MS = 5 * 60_000;

interface Person {
  /** An admin or owner of the workspace the app is installed in. */
  readonly admin: boolean;
  readonly name: string | undefined;
  readonly at: number;
}

/**
 * Who someone is in Slack, from `users.info` (cached for five minutes): the
 * name the model reads them by, and whether they administer the workspace
 * the app is installed in. Slack's `is_admin` is about the person's own
 * team, so a Slack Connect guest who runs the partner's workspace is no
 * admin here: only someone whose team is the installation's (or who
 * belongs to it through the same Enterprise Grid org) is.
 */
export class SlackPeople {
  readonly #cache = new Map<string, Person>();

  constructor(
    private readonly client: WebClient,
    /** The installation's team (`auth.test`); empty when it is not known yet. */
    private readonly team: () => string,
  ) {}

  async actor(userId: string): Promise<Actor> {
    return { id: `slack:${userId}`, isPlatformAdmin: (await this.#person(userId)).admin };
  }

  async name(userId: string): Promise<string | undefined> {
    return (await this.#person(userId)).name;
  }

  async #person(userId: string): Promise<Person> {
    const cached = this.#cache.get(userId);
    if (cached && Date.now() - cached.at < USER_CACHE_MS) return cached;
    let person: Person = { admin: false, name: undefined, at: Date.now() };
    try {
      const { user } = await this.client.users.info({ user: userId });
      const team = this.team();
      const ours =
        !team ||
        !user?.team_id ||
        user.team_id === team ||
        Boolean(user.enterprise_user?.teams?.includes(team));
      person = {
        admin: ours && Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner),
        name: user?.profile?.display_name || user?.real_name || user?.name || undefined,
        at: Date.now(),
      };
    } catch {
      // An unknown user is no admin and keeps their id.
    }
    this.#cache.set(userId, person);
    return person;
  }
}
