/** The signed-in owner, kept in this tab's sessionStorage only (gone when the tab closes). */
import type { OwnerProject } from './api';

const KEY = 'svc-owner';

export interface Session {
  owner_key: string;
  project: OwnerProject;
}

export function loadSession(): Session | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null;
    return value && typeof value.owner_key === 'string' && value.project ? value : null;
  } catch {
    return null;
  }
}

export const saveSession = (session: Session) => sessionStorage.setItem(KEY, JSON.stringify(session));
export const clearSession = () => sessionStorage.removeItem(KEY);
