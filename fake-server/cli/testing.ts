/** Test support for the fake as a process (cli.test.ts, packaged.test.ts): start it by any command, stop it by a signal, see the port released. */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';

export interface FakeProcess {
  readonly child: ChildProcess;
  readonly ready: { url: string; keys: { key: string }[]; control_url: string };
  /** Resolves when the started process exits (under npx, npx; the fake may outlive it briefly). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it printed after the ready line, and on stderr. */
  readonly output: () => string;
}

/** Starts the fake by `command` (which must pass --ready-json); resolves once it printed its ready line. `detached` gives it a process group of its own. */
export async function startFake(command: string, args: readonly string[], options: { cwd: string; detached?: boolean }): Promise<FakeProcess> {
  const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false, env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' } });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = await new Promise<FakeProcess['ready']>((resolve, reject) => {
    const look = () => {
      const line = /^\{.*\}$/m.exec(output)?.[0];
      if (line === undefined) return;
      child.stdout.removeListener('data', look);
      resolve(JSON.parse(line));
    };
    child.stdout.on('data', look);
    void exited.then(({ code }) => reject(new Error(`${command} ${args.join(' ')} exited with ${code} before it was ready: ${output}`)));
  });
  return { child, ready, exited, output: () => output.slice(output.indexOf('}\n') + 2) };
}

/** Whether nothing listens at the URL's port any more. */
export function portFree(url: string): Promise<boolean> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname).once('connect', () => resolve(socket.destroy() && false)).once('error', () => resolve(true));
  });
}

/**
 * Sends `signal` to the process, or to its whole process group as a terminal's Ctrl-C does; resolves
 * with the milliseconds until it exited and the port was released (a fake under npx may outlive npx
 * by its parent-watch interval). Fails if the port is still taken 10 s on.
 */
export async function stopFake(fake: FakeProcess, signal: NodeJS.Signals, to: 'process' | 'group' = 'process'): Promise<number> {
  const sent = performance.now();
  if (to === 'group') process.kill(-fake.child.pid!, signal);
  else fake.child.kill(signal);
  await fake.exited;
  while (!(await portFree(fake.ready.url))) {
    if (performance.now() - sent > 10_000) throw new Error(`the port of ${fake.ready.url} is still taken 10 s after ${signal}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return performance.now() - sent;
}
