// CPU accounting from /proc (Linux): CPU time of a process group (a `wrangler dev` and its workerd
// children) and of the whole machine, so a run reports CPU per request and how busy the machine was
// with other work. Elsewhere the figures are simply absent.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';

const HAS_PROC = existsSync('/proc/stat');
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Fields after the command name of /proc/<pid>/stat: [0] state, [2] pgrp, [11] utime, [12] stime. */
function statFields(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds used so far by every live process of process group `pgid`. */
export function groupCpuSeconds(pgid) {
  if (!HAS_PROC) return NaN;
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const f = statFields(entry);
      if (Number(f[2]) === pgid) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks / TICKS_PER_SECOND;
}

/** Busy, stolen (by the hypervisor, from a virtual machine) and total CPU seconds of the machine so far (all cores). */
export function machineCpuSeconds() {
  if (!HAS_PROC) return { busy: NaN, steal: NaN, total: NaN };
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  const idle = f[3] + (f[4] ?? 0);
  const steal = f[7] ?? 0;
  return { busy: (total - idle - steal) / TICKS_PER_SECOND, steal: steal / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

const groupsCpuSeconds = (groups) => groups.reduce((s, g) => s + groupCpuSeconds(g), 0);

/** CPU seconds so far of the server groups, the helper groups, this process and the machine. */
function snapshot(serverGroups, helperGroups) {
  const c = process.cpuUsage();
  const machine = machineCpuSeconds();
  return {
    server: groupsCpuSeconds(serverGroups),
    helper: groupsCpuSeconds(helperGroups),
    client: (c.user + c.system) / 1e6,
    busy: machine.busy,
    steal: machine.steal,
  };
}

/** Per request and per second figures of the CPU seconds counted (see startCpuMeter). */
function figures(used, requests, seconds) {
  return {
    server_cpu_ms: (used.server * 1000) / requests,
    client_cpu_ms: (used.client * 1000) / requests,
    helper_cpu_ms: (used.helper * 1000) / requests,
    other_cores: Math.max(0, (used.busy - used.server - used.client - used.helper) / seconds),
    steal_cores: used.steal / seconds,
  };
}

/**
 * A CPU meter that counts only while its slices run: `during(run)` adds what the machine used while `run`
 * ran, `figures(requests, seconds)` answers as startCpuMeter's stop over all slices counted.
 */
export function cpuAccount(serverGroups, helperGroups = []) {
  const used = { server: 0, helper: 0, client: 0, busy: 0, steal: 0 };
  return {
    async during(run) {
      const before = snapshot(serverGroups, helperGroups);
      try {
        return await run();
      } finally {
        const after = snapshot(serverGroups, helperGroups);
        for (const key of Object.keys(used)) used[key] += after[key] - before[key];
      }
    },
    figures: (requests, seconds) => figures(used, requests, seconds),
  };
}

/**
 * Starts a CPU meter over the server process groups, the bench's own helper groups (the loopback
 * destination) and this process; `stop(requests, seconds)` returns server CPU ms per request, client
 * CPU ms per request, helper CPU ms per request, the cores other processes kept busy and the cores the
 * hypervisor took from this machine (steal).
 */
export function startCpuMeter(serverGroups, helperGroups = []) {
  const before = snapshot(serverGroups, helperGroups);
  return (requests, seconds) => {
    const after = snapshot(serverGroups, helperGroups);
    const used = Object.fromEntries(Object.keys(before).map((key) => [key, after[key] - before[key]]));
    return figures(used, requests, seconds);
  };
}
