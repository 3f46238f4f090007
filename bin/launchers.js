/**
 * A command started through npm (npx, npm exec, npm start) ends when that npm ends. npm passes
 * SIGTERM on to the shell it started the command in, but that shell (dash) does not pass it on,
 * and a SIGKILL reaches nobody: the command would live on, orphaned, holding its port. So it
 * watches its launchers (the processes from its parent up to npm) and stops, as on SIGTERM, once
 * one of them is gone. Started otherwise (node dist/cli.js, nohup, a service manager), it watches
 * nothing: there, outliving the parent may be the point.
 * Plain ESM with nothing from node_modules: scripts/maintained-node.js runs it on any Node,
 * before dist/ exists; the server (dist/cli.js) and `listen` use it too.
 */
import { readFileSync } from 'node:fs';

const CHECK_EVERY_MS = 250;
/** How far up the tree npm is looked for: npm, its shell, us; a few more for wrappers. */
const MAX_DEPTH = 6;

/** Calls `stop` once, when a launcher ends; nothing when the process was not started by npm. */
export function stopWhenLauncherEnds(stop, env = process.env) {
  if (!env.npm_execpath) return;
  const firstParent = process.ppid;
  const launchers = launchersUpToNpm();
  const timer = setInterval(() => {
    // Reparented (the parent is gone), or an ancestor up to npm is gone.
    if (process.ppid === firstParent && launchers.every(isAlive)) return;
    clearInterval(timer);
    stop();
  }, CHECK_EVERY_MS);
  timer.unref();
}

/** Pids from the parent up to the nearest npm process (Linux's /proc); elsewhere, or with no npm found, the parent alone. */
function launchersUpToNpm() {
  const chain = [];
  for (let pid = process.ppid, depth = 0; pid > 1 && depth < MAX_DEPTH; depth++) {
    chain.push(pid);
    const proc = processInfo(pid);
    if (!proc) break;
    if (/^np[mx](\s|\0|$)|np[mx]-cli\.js/.test(proc.cmdline)) return chain;
    pid = proc.ppid;
  }
  return [process.ppid];
}

function processInfo(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (in parentheses) may hold spaces: the fields after it are split.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return { cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8'), ppid };
  } catch {
    return undefined;
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, owned by another user.
    return err.code === 'EPERM';
  }
}
