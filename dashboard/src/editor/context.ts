/** What every input of the ticket form shares: the one in-memory definition and the refusal to show. */
import { createContext } from 'preact';
import type { Segment } from '../logic/json-path';

export type Definition = Record<string, unknown>;

export interface EditorState {
  def: Definition;
  set(path: readonly Segment[], value: unknown): void;
  /** The shown input the current refusal belongs to (its data-path), and the message. */
  issue: { path: string; message: string } | null;
}

export const EditorContext = createContext<EditorState>({ def: {}, set: () => {}, issue: null });

/** A DOM id for a field path (ids must not carry brackets or quotes). */
export const inputId = (path: string) => `f-${path.replace(/[^A-Za-z0-9]/g, (c) => `_${c.charCodeAt(0).toString(16)}_`)}`;
