import { PermissionFlagsBits } from "discord.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { permissionsIn } from "../../src/platforms/discord/directory.ts";

const GUILD = "1200000000000000001";
const USER = "1000000000000000002";
const SEND = PermissionFlagsBits.SendMessages;
const bits = fc.bigInt({ min: 0n, max: (1n << 50n) - 1n });
const roleIds = fc.uniqueArray(fc.constantFrom("1401", "1402", "1403", "1404"), { maxLength: 4 });

const overwrite = fc.record({
  id: fc.constantFrom(GUILD, "1401", "1402", USER, "1000000000000000003"),
  type: fc.constantFrom(0, 1),
  allow: bits.map(String),
  deny: bits.map(String),
});

const scene = fc.record({
  everyone: bits,
  roles: fc.array(fc.record({ id: fc.constantFrom("1401", "1402", "1403"), permissions: bits })),
  memberRoles: roleIds,
  overwrites: fc.array(overwrite, { maxLength: 6 }),
});

interface Scene {
  everyone: bigint;
  roles: { id: string; permissions: bigint }[];
  memberRoles: string[];
  overwrites: { id: string; type: number; allow: string; deny: string }[];
}

function compute(s: Scene, owner = "1") {
  return permissionsIn(
    {
      owner_id: owner,
      roles: [
        { id: GUILD, permissions: String(s.everyone) },
        ...s.roles.map((r) => ({
          id: r.id,
          permissions: String(r.permissions),
        })),
      ],
    },
    GUILD,
    { id: "1300", name: "c", type: 0, permission_overwrites: s.overwrites },
    USER,
    { roles: s.memberRoles },
  );
}

describe("Discord's permission algorithm as send_message checks it", () => {
  it("gives the guild owner everything, whatever the roles and overwrites", () => {
    fc.assert(
      fc.property(scene, (s) => {
        expect(compute(s, USER)).toBe(~0n);
      }),
    );
  });

  it("gives Administrator everything, overwrites notwithstanding", () => {
    fc.assert(
      fc.property(scene, (s) => {
        const admin = { ...s, everyone: s.everyone | PermissionFlagsBits.Administrator };
        expect(compute(admin)).toBe(~0n);
      }),
    );
  });

  it("lets the member's own overwrite decide Send Messages last", () => {
    fc.assert(
      fc.property(scene, fc.boolean(), (s, allow) => {
        const everyone = s.everyone & ~PermissionFlagsBits.Administrator;
        const roles = s.roles.map((r) => ({
          ...r,
          permissions: r.permissions & ~PermissionFlagsBits.Administrator,
        }));
        const own = {
          id: USER,
          type: 1,
          allow: allow ? String(SEND) : "0",
          deny: allow ? "0" : String(SEND),
        };
        const others = s.overwrites.filter((o) => o.type === 0);
        const result = compute({ ...s, everyone, roles, overwrites: [...others, own] });
        expect((result & SEND) === SEND).toBe(allow);
      }),
    );
  });

  it("applies a role's allow over @everyone's deny in the channel", () => {
    const s: Scene = {
      everyone: SEND,
      roles: [{ id: "1401", permissions: 0n }],
      memberRoles: ["1401"],
      overwrites: [
        { id: GUILD, type: 0, allow: "0", deny: String(SEND) },
        { id: "1401", type: 0, allow: String(SEND), deny: "0" },
      ],
    };
    expect(compute(s) & SEND).toBe(SEND);
    expect(compute({ ...s, memberRoles: [] }) & SEND).toBe(0n);
  });
});
