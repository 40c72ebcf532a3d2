/**
 * What the host has. A tool whose capability is missing here, or present but
 * unavailable, is off at the floor: no scope can turn it on (rule 3).
 */
export type CapabilityStatus =
  | { readonly available: true }
  | { readonly available: false; readonly reason: string };

export type Capabilities = Readonly<Record<string, CapabilityStatus>>;

export function capabilityStatus(capabilities: Capabilities, name: string): CapabilityStatus {
  return (
    (Object.hasOwn(capabilities, name) ? capabilities[name] : undefined) ?? {
      available: false,
      reason: `this host does not provide the "${name}" capability`,
    }
  );
}
