/** The machine a bench ran on, printed and written with its figures (a figure means little without the load beside it). */
import { cpus, loadavg, totalmem } from 'node:os';

export interface Machine {
  readonly cores: number;
  readonly cpu: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly loadAverageAtStart: number[];
}

/** The 1, 5 and 15 minute load averages, two decimals. */
export function loadAverage(): number[] {
  return loadavg().map((n) => Number(n.toFixed(2)));
}

export function machine(): Machine {
  return { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform} ${process.arch}`, loadAverageAtStart: loadAverage() };
}

export function machineLine(m: Machine): string {
  return `${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}; load average at start ${m.loadAverageAtStart.join(' ')}`;
}
