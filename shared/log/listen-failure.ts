/**
 * The one line a process logs when it cannot listen: what went wrong and what to change, for the
 * failures a deployer or a first `npm start` meets (the port taken, a port below 1024 without the
 * right, an address the machine does not have). Anything else keeps its own message.
 */
export interface Listening {
  /** Who could not start, as the line begins: `web process`, `worker`. */
  what: string;
  host: string;
  port: number;
  /** The environment variable that sets the port (`PORT`, `APP_WORKER__METRICS_PORT`). */
  portVariable: string;
}

export function listenFailureText(error: unknown, listen: Listening): string {
  const failure = error as NodeJS.ErrnoException | undefined;
  const start = `${listen.what} could not start`;
  // a connection's failure (the database's) may carry the same codes: only a listen's is explained
  const code = failure?.syscall === 'listen' ? failure.code : undefined;
  if (code === 'EADDRINUSE')
    return `${start}: port ${listen.port} is in use by another process; stop it, or choose another port with ${listen.portVariable} (for example ${listen.portVariable}=${listen.port + 1})`;
  if (code === 'EACCES')
    return `${start}: not allowed to listen on ${listen.host}:${listen.port}; ports below 1024 need the right to bind them, choose another port with ${listen.portVariable}`;
  if (code === 'EADDRNOTAVAIL')
    return `${start}: this machine has no address ${listen.host}; set APP_HOST to one it has (0.0.0.0 listens on every address)`;
  return `${start}: ${error instanceof Error ? error.message : String(error)}`;
}
