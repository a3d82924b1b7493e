export type Plan = 'free' | 'standard' | 'premium';

/** External OIDC issuer of a project's users. */
export interface IdentitySettings {
  issuer: string;
  audience: string;
  jwks_url: string;
}

/**
 * A project's limits on its consume routes, each a step of its ladder in src/limits.ts (requests every
 * FLOOD_PERIOD_SECONDS): from one address at one ticket, and from every address at all its tickets.
 */
export interface FloodLimits {
  per_caller_per_ticket: number;
  per_project: number;
  /** Per ticket id, a per_caller_per_ticket of its own. */
  tickets: Record<string, number>;
}

export interface Project {
  service_id: string;
  owner_id: string;
  name: string;
  active: boolean;
  plan: Plan;
  identity: IdentitySettings | null;
  /** Whether a secureRequest key is stored (the key itself is never part of the project). */
  secure_request_key_set: boolean;
  /** Where secureRequest may send: every url of a call must match one (Secret Key Destinations rules); [] for any public url. */
  secure_request_destinations: string[];
  /** The flood limits of its consume routes, as the owner chose them within the steps (defaults filled in). */
  flood_limits: FloodLimits;
  created: number;
  updated: number;
}

/** A signed-in user of a project, as the engine sees them (attributes read by ${user[key]}). */
export interface ProjectUser {
  user_id: string;
  email?: string;
  access_group: number;
  attributes: Record<string, unknown>;
}

/** Who is calling: the project owner (owner key), a signed-in user (id token), or nobody. */
export type Caller = { kind: 'owner'; owner_id: string } | { kind: 'user'; user: ProjectUser } | { kind: 'anonymous' };
