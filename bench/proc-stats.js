// What Linux's /proc says of a process, for the benchmarks' per-process CPU and memory figures.
import { readFileSync } from 'node:fs';

/** utime + stime of a process, in clock ticks (100 a second on Linux). */
export function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (in brackets) may hold spaces: the fields start after its closing bracket.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Resident memory of a process, in MB (VmRSS). */
export function residentMb(pid) {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? Math.round(Number(kb) / 1024) : NaN;
}
