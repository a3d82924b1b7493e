// CPU profile of a Worker under `wrangler dev`, taken through its inspector port, and a summary of
// where the sampled time went: per source module of the bundle and per function.

/**
 * Starts the V8 sampling profiler of the Worker's isolate; resolves to stop() => { profile, sources }
 * where sources maps the profiled scripts' ids to their text (the bundle, read back through the
 * debugger once profiling is over, so the debugger never runs during the measurement).
 */
export async function startCpuProfile(inspectorPort, intervalMicros = 200) {
  const [target] = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  // The inspector proxy accepts only local or DevTools origins.
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { origin: 'http://127.0.0.1' } });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error('could not connect to the inspector'));
  });
  let nextId = 1;
  const pending = new Map();
  const scripts = new Map();
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (msg.method === 'Debugger.scriptParsed') scripts.set(msg.params.scriptId, msg.params.url);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(new Error(`${msg.error.message}`));
      else resolve(msg.result);
    }
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: intervalMicros });
  await send('Profiler.start');
  return async () => {
    const { profile } = await send('Profiler.stop');
    await send('Debugger.enable');
    const sources = {};
    for (const id of new Set(profile.nodes.map((n) => n.callFrame.scriptId))) {
      if (!scripts.has(id) || scripts.get(id).startsWith('cloudflare-internal:')) continue;
      sources[id] = (await send('Debugger.getScriptSource', { scriptId: id })).scriptSource;
    }
    await send('Debugger.disable');
    ws.close();
    return { profile, sources };
  };
}

/** esbuild marks each module of a bundle with a `// path/of/module.ts` line; maps bundle lines to modules. */
function moduleIndex(url, source) {
  if (source === undefined) return () => url;
  const marks = [];
  source.split('\n').forEach((line, i) => {
    const m = /^\/\/ ((?:\.\.\/)*[\w@./-]+\.(?:ts|js|mjs|cjs))$/.exec(line);
    if (m) marks.push({ line: i, module: m[1].replace(/^(\.\.\/)+/, '') });
  });
  return (line) => {
    let lo = 0;
    let hi = marks.length - 1;
    let found = '(bundle prelude)';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid].line <= line) {
        found = marks[mid].module;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/** Module of a node: the bundle module for Worker code, else V8's pseudo-frames ((program), (garbage collector)). */
function describeNodes(sources) {
  const indexes = new Map();
  return (node) => {
    const { url, functionName, lineNumber, scriptId } = node.callFrame;
    if (!url) return { module: functionName.startsWith('(') ? functionName : '(native)', fn: functionName || '(native)' };
    if (!indexes.has(scriptId)) indexes.set(scriptId, moduleIndex(url, sources[scriptId]));
    const module = indexes.get(scriptId)(lineNumber);
    return { module, fn: `${functionName || '(anonymous)'} (${module})` };
  };
}

/**
 * Self time per module (native calls counted in the module that made them) and per function, and
 * inclusive time per function, in ms and % of the non-idle sampled time.
 */
export function summarizeProfile({ profile, sources }) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Every sample weighs the typical interval: on a busy machine a sample that comes late (the
  // process was descheduled) would otherwise charge the whole gap to whatever code it lands on.
  const deltas = profile.timeDeltas.slice(1).sort((a, b) => a - b);
  const interval = (deltas[Math.floor(deltas.length / 2)] ?? 0) / 1000;
  const dt = new Map();
  for (const id of profile.samples) dt.set(id, (dt.get(id) ?? 0) + interval);
  const describe = describeNodes(sources);
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfModule = new Map();
  const selfFn = new Map();
  const inclusiveFn = new Map();
  let busy = 0;
  let idle = 0;
  // Native frames (SQL exec, crypto, Response.json...) count toward the module that called them.
  const moduleOf = new Map();
  const callerModule = (id) => {
    if (moduleOf.has(id)) return moduleOf.get(id);
    const node = byId.get(id);
    const d = describe(node);
    const up = parent.get(id);
    const module = d.module === '(native)' && up !== undefined && byId.get(up).callFrame.functionName !== '(root)' ? callerModule(up) : d.module;
    moduleOf.set(id, module);
    return module;
  };
  for (const [id, ms] of dt) {
    const d = describe(byId.get(id));
    if (d.module === '(idle)') {
      idle += ms;
      continue;
    }
    busy += ms;
    const module = callerModule(id);
    selfModule.set(module, (selfModule.get(module) ?? 0) + ms);
    selfFn.set(d.fn, (selfFn.get(d.fn) ?? 0) + ms);
    // Inclusive: every distinct function on the stack gets the sample once.
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const fn = describe(byId.get(cur)).fn;
      if (seen.has(fn)) continue;
      seen.add(fn);
      inclusiveFn.set(fn, (inclusiveFn.get(fn) ?? 0) + ms);
    }
  }
  const rows = (map) => [...map].sort((a, b) => b[1] - a[1]).map(([name, ms]) => ({ name, ms: +ms.toFixed(1), pct: +((100 * ms) / busy).toFixed(1) }));
  return {
    busy_ms: +busy.toFixed(1),
    idle_ms: +idle.toFixed(1),
    selfByModule: rows(selfModule),
    selfByFunction: rows(selfFn),
    inclusiveByFunction: rows(inclusiveFn),
  };
}
