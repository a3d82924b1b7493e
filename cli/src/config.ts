import path from 'node:path';
import { usageError } from './errors';

/** What `svc login` stores. */
export interface StoredConfig {
  url: string;
  owner_key: string;
  service_id: string;
}

/** Where the CLI finds its project: the environment (service id looked up when not given) or the config file. */
export type ResolvedConfig =
  | { source: 'env'; url: string; ownerKey: string; serviceId?: string }
  | { source: 'file'; path: string; url: string; ownerKey: string; serviceId: string };

type Env = Record<string, string | undefined>;

const NOT_LOGGED_IN = 'Not logged in: run `svc login` (the owner key is read from stdin) or set SVC_URL and SVC_OWNER_KEY.';

/** $SVC_CONFIG, else $XDG_CONFIG_HOME/svc/config.json, else ~/.config/svc/config.json. */
export function configPath(env: Env, home: string): string {
  if (env.SVC_CONFIG) return path.resolve(env.SVC_CONFIG);
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home, '.config');
  return path.join(base, 'svc', 'config.json');
}

/** A base url as the CLI keeps it: absolute http(s), without a trailing slash, query or fragment. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw usageError(`Not a base url: "${raw}" (expected http://… or https://…).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`Not a base url: "${raw}" (expected http://… or https://…).`);
  if (url.username || url.password) throw usageError('The base url must not hold a user name or password.');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The config file's text, checked (its path is named when it is damaged). */
export function parseConfigFile(text: string, file: string): StoredConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(`${file} is not JSON: run \`svc login\` again.`);
  }
  const config = value as Partial<StoredConfig> | null;
  for (const field of ['url', 'owner_key', 'service_id'] as const) {
    if (typeof config?.[field] !== 'string' || config[field] === '') throw usageError(`${file} has no "${field}": run \`svc login\` again.`);
  }
  return config as StoredConfig;
}

/** SVC_URL + SVC_OWNER_KEY win over the file; neither and no file is a usage error. */
export function resolveConfig(env: Env, file: string, fileText: string | null): ResolvedConfig {
  const url = env.SVC_URL || undefined;
  const ownerKey = env.SVC_OWNER_KEY || undefined;
  if (url && ownerKey) return { source: 'env', url: normalizeBaseUrl(url), ownerKey, serviceId: env.SVC_SERVICE_ID || undefined };
  if (url || ownerKey)
    throw usageError(`${url ? 'SVC_URL' : 'SVC_OWNER_KEY'} is set but ${url ? 'SVC_OWNER_KEY' : 'SVC_URL'} is not: set both, or neither to use \`svc login\`.`);
  if (fileText === null) throw usageError(NOT_LOGGED_IN);
  const stored = parseConfigFile(fileText, file);
  return { source: 'file', path: file, url: normalizeBaseUrl(stored.url), ownerKey: stored.owner_key, serviceId: stored.service_id };
}
