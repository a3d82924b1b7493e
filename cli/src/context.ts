import { Api, paths } from './api';
import { configPath, resolveConfig } from './config';
import { readConfigText } from './config-file';
import { createIo, type Io } from './output';

type Env = Record<string, string | undefined>;

/** The process the CLI runs in: environment, home folder and standard streams. */
export interface Runtime {
  env: Env;
  home: string;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** The project the commands act on. */
export interface Session {
  api: Api;
  serviceId: string;
  paths: ReturnType<typeof paths>;
}

/** The answer of GET /v1/owner. */
export interface OwnerProject {
  service_id: string;
  owner_id: string;
  name: string;
  plan: string;
  active: boolean;
}

export interface Ctx {
  rt: Runtime;
  io: Io;
  configFile: string;
  /** The configured project (env vars or config file); a usage error when there is none. */
  session(): Promise<Session>;
}

export function createContext(rt: Runtime, json: boolean): Ctx {
  const io = createIo({ stdout: rt.stdout, stderr: rt.stderr, stdinIsTTY: rt.stdin.isTTY, env: rt.env, json });
  const configFile = configPath(rt.env, rt.home);
  return {
    rt,
    io,
    configFile,
    async session() {
      const fromEnv = Boolean(rt.env.SVC_URL && rt.env.SVC_OWNER_KEY);
      const config = resolveConfig(rt.env, configFile, fromEnv ? null : await readConfigText(configFile));
      io.mask(config.ownerKey);
      const api = new Api(config.url, config.ownerKey);
      const serviceId = config.serviceId ?? (await api.request<OwnerProject>('GET', '/v1/owner')).service_id;
      return { api, serviceId, paths: paths(serviceId) };
    },
  };
}
