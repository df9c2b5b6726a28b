/** Child processes of the bench: servers started and stopped by pid, their URL read from what they print, their RSS and CPU time read from /proc. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export interface Started {
  readonly url: string;
  readonly child: ChildProcess;
  /** Milliseconds from spawn to the URL being printed. */
  readonly printedAfter: number;
  readonly stop: () => Promise<void>;
}

/** Stops the child, or with `group` its whole process group (a server under npx or npm run, whose shell and node would outlive the npx they were sent to). */
function stopper(child: ChildProcess, group = false): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      if (group) process.kill(-child.pid!, 'SIGTERM');
      else child.kill('SIGTERM');
    });
}

/** Where and how a server is spawned: its directory and environment, and `group` for a process group of its own, stopped whole. */
export interface SpawnOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly group?: boolean;
}

/** Spawns `command` and waits for it to print an http://host:port URL (on stdout or stderr). */
export function startPrintingUrl(command: string, args: readonly string[], timeoutMs = 60_000, options: SpawnOptions = {}): Promise<Started> {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(options.cwd && { cwd: options.cwd }), ...(options.env && { env: options.env }), detached: options.group === true });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      if (options.group) process.kill(-child.pid!, 'SIGKILL');
      else child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} printed no URL within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const look = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /http:\/\/[\w.-]+:\d+/.exec(output);
      if (match === null) return;
      clearTimeout(timer);
      child.stdout!.removeListener('data', look);
      child.stderr!.removeListener('data', look);
      // Keep draining, or a chatty server blocks on a full pipe.
      child.stdout!.resume();
      child.stderr!.resume();
      resolve({ url: match[0], child, printedAfter: performance.now() - started, stop: stopper(child, options.group) });
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited (${code}) before printing a URL:\n${output}`));
    });
  });
}

/** A port free right now on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Spawns a server that prints nothing useful and waits until `ready()` holds. */
export async function startPolling(command: string, args: readonly string[], url: string, ready: () => Promise<boolean>, timeoutMs = 90_000): Promise<Started> {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'ignore'] });
  const stop = stopper(child);
  while (performance.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`${command} exited (${child.exitCode}) before it was ready`);
    if (await ready().catch(() => false)) return { url, child, printedAfter: performance.now() - started, stop };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(`${command} ${args.join(' ')} was not ready within ${timeoutMs} ms`);
}

/** Resident set size of a live process in MiB (Linux). */
export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time a live process has used so far, user and system, in seconds (Linux). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, so it is skipped by its closing parenthesis): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
