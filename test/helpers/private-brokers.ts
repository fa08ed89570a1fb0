/**
 * Brokers of a test's own, configured differently from the shared local ones (which let anyone
 * in): a Mosquitto that checks passwords and topic rights, a redis-server with a password. Each
 * runs on a free port from a temporary directory and is stopped when the test file ends.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { eventually } from './poll.ts';
import { freePort } from './ports.ts';

const started: Array<{ child: ChildProcess; dir: string }> = [];
after(async () => {
  for (const { child, dir } of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Runs `command` with `args`, answering once it accepts connections on `port`, with its output so far. */
async function run(
  command: string,
  args: string[],
  port: number,
  dir: string,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(command, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push({ child, dir });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`${command} exited: ${output}`);
      return accepts(port);
    },
    10_000,
    `${command} listening on ${port}`,
  );
  return { child, output: () => output };
}

export interface PrivateMosquitto {
  port: number;
  /** Sets (or adds) `user`'s password and has the broker read the password file again. */
  setPassword(user: string, password: string): Promise<void>;
  /** Lets every user publish to `topic` (an ACL pattern) from now on. */
  allowTopic(topic: string): Promise<void>;
}

/**
 * A Mosquitto where only `users` (name -> password) may connect, and they may publish only to
 * topics under `allowed/` (and to those `allowTopic` adds) and read everything.
 */
export async function startMosquitto(users: Record<string, string>): Promise<PrivateMosquitto> {
  const dir = mkdtempSync(join(tmpdir(), 'mosquitto-'));
  // started as root, Mosquitto drops to its own user before reading the password and ACL files
  chmodSync(dir, 0o755);
  const port = await freePort();
  const passwords = join(dir, 'passwd');
  const acl = join(dir, 'acl');
  const topics = ['allowed/#'];
  const writeAcl = () =>
    writeFileSync(acl, `pattern read #\n${topics.map((topic) => `pattern write ${topic}`).join('\n')}\n`);
  const setPassword = (user: string, password: string) => {
    spawnSync('mosquitto_passwd', ['-b', passwords, user, password]);
    chmodSync(passwords, 0o644);
  };
  writeFileSync(passwords, '');
  for (const [user, password] of Object.entries(users)) setPassword(user, password);
  writeAcl();
  writeFileSync(
    join(dir, 'mosquitto.conf'),
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous false',
      `password_file ${passwords}`,
      `acl_file ${acl}`,
      'persistence false',
      'log_dest stderr',
      '',
    ].join('\n'),
  );
  const { child, output } = await run('mosquitto', ['-c', join(dir, 'mosquitto.conf')], port, dir);
  const reloads = () => output().split('Reloading config.').length - 1;
  /**
   * SIGHUP makes Mosquitto read its password and ACL files again; it logs the reload as it
   * starts it, in the loop that also serves connections, so a connection after the line is
   * served with the new files.
   */
  const reload = async () => {
    const before = reloads();
    child.kill('SIGHUP');
    await eventually(() => reloads() > before, 5_000, 'mosquitto to reload its files');
  };
  return {
    port,
    async setPassword(user, password) {
      setPassword(user, password);
      await reload();
    },
    async allowTopic(topic) {
      topics.push(topic);
      writeAcl();
      await reload();
    },
  };
}

/** A redis-server that asks for `password` (the `default` user's), without persistence. */
export async function startRedisServer(password: string): Promise<{ port: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-'));
  const port = await freePort();
  await run(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--requirepass', password, '--save', '', '--appendonly', 'no'],
    port,
    dir,
  );
  return { port };
}
