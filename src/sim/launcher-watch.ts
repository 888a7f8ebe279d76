/**
 * Stops the simulator when the `npm run sim` that launched it is gone.
 *
 * Why: npm runs the script through `sh -c`, which does not pass SIGTERM on to `tsx`. A
 * tool that starts `npm run sim -- --listen …` and later terminates npm would otherwise
 * leave an orphaned simulator holding its TCP port. On Linux we walk /proc from our parent
 * up to the nearest npm process and poll: if any process of that chain exits or is
 * re-parented, the launcher is gone. Without /proc, or without an npm ancestor (started
 * directly, e.g. with nohup), nothing is watched.
 */
import { readFileSync } from 'node:fs';

interface Link {
  pid: number;
  ppid: number;
}

function stat(pid: number): { ppid: number; state: string } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces and parentheses).
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0] ?? '?', ppid: Number(rest[1]) };
  } catch {
    return null;
  }
}

function isNpm(pid: number): boolean {
  try {
    // npm rewrites its title, so argv[0] may read "npm run sim --listen …" as one string.
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
    return argv.slice(0, 2).some((a) => /(^|\/)npm(-cli\.js)?$/.test(a));
  } catch {
    return false;
  }
}

/** This process and its ancestors below the launching npm, each with its parent; or null. */
function launcherChain(): Link[] | null {
  const chain: Link[] = [{ pid: process.pid, ppid: process.ppid }];
  let pid = process.ppid;
  for (let depth = 0; depth < 6 && pid > 1; depth++) {
    if (isNpm(pid)) return chain;
    const st = stat(pid);
    if (!st) return null;
    chain.push({ pid, ppid: st.ppid });
    pid = st.ppid;
  }
  return null;
}

/** Calls `onGone` once when the launcher chain breaks; returns a function that stops watching. */
export function watchLauncher(onGone: () => void, intervalMs = 500): () => void {
  if (process.env.npm_lifecycle_event !== 'sim') return () => {};
  const chain = launcherChain();
  if (!chain) return () => {};
  const timer = setInterval(() => {
    const broken = chain.some((l) => {
      const st = l.pid === process.pid ? { ppid: process.ppid, state: 'R' } : stat(l.pid);
      return !st || st.state === 'Z' || st.ppid !== l.ppid;
    });
    if (broken) {
      clearInterval(timer);
      onGone();
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
